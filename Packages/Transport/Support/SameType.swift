/// `value` as a `U`, when its type is exactly `U`; `nil` for any other type.
///
/// For a caller that has an existential (opened into `value`) and expects one type: comparing
/// the type the existential records with `U` costs a few instructions, where `as?` from an
/// existential takes the runtime's general cast, several hundred on every call. The recorded
/// type is the one the boxing code saw (a class instance boxed as its base class records the
/// base), so a caller whose boxes may record another type casts when this answers `nil`.
///
/// Inlined into its callers, in other modules too: called as a generic function, it measured no
/// cheaper than the cast it replaces.
@inlinable @inline(__always)
package func sameTypeValue<T, U>(_ value: T, as type: U.Type) -> U? {
    // The same type: the bits are the value.
    T.self == U.self ? unsafeBitCast(value, to: U.self) : nil
}
