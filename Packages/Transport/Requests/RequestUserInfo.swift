/// A key for a value in ``RequestUserInfo``: a type, so that each key has one value type and
/// two modules cannot clash on a name.
///
/// ```swift
/// enum ScreenName: RequestUserInfoKey { typealias Value = String }
/// request.userInfo[ScreenName.self] = "forecast"
/// ```
public protocol RequestUserInfoKey {
    /// The type of the value stored under the key.
    associatedtype Value: Sendable
}

/// Typed values that travel with a request for the code around it (MGJRequestManager's
/// `userInfo`): a plugin, a middleware, a presenter or a decoder reads what the caller put.
///
/// Forms merge a client's values, then a call's, into each request they send and into the
/// handle they return; a handle derived from another (a decode) keeps its values. The engine
/// never reads them.
public struct RequestUserInfo: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Creates empty user information.
    public init() {}

    /// The value stored under `key`, or `nil`.
    public subscript<Key: RequestUserInfoKey>(_ key: Key.Type) -> Key.Value? {
        get {
            // Most requests carry nothing: no hashing, no cast.
            guard !values.isEmpty else { return nil }
            return values[ObjectIdentifier(key)] as? Key.Value
        }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Whether no value is stored.
    public var isEmpty: Bool { values.isEmpty }

    /// This information with `other`'s values added; `other` wins where both have a key.
    ///
    /// - Parameter other: The values to add.
    /// - Returns: The merged information.
    public func merging(_ other: RequestUserInfo) -> RequestUserInfo {
        guard !other.isEmpty else { return self }
        guard !isEmpty else { return other }
        var merged = self
        merged.values.merge(other.values) { _, theirs in theirs }
        return merged
    }
}
