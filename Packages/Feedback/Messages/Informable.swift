/// A type that tells a person a request succeeded: MBNetwork's `Informable`.
///
/// A handle's `inform(_:)` passes the value to ``inform(_:)``. When the value is `Errorable`
/// (an `EnvelopeHead` from `successOnly()`, or a model of your own that adopts `Errorable`)
/// and its code is one of ``Messageable/successCodes``, the default shows its message (or
/// the catalog's sentence for that code); otherwise it shows ``successMessage`` when there is
/// one.
public protocol Informable: Messageable {
    /// What to say after a success whose value carries no message; `nil` (say nothing) by default.
    var successMessage: String? { get }
    /// Tells the person about a success.
    func inform(_ value: any Sendable)
}

extension Informable {
    /// `nil`.
    public var successMessage: String? { nil }

    /// Shows the catalog's information for `value`, if any.
    public func inform(_ value: any Sendable) {
        guard
            let message = catalog.information(for: value, successCodes: successCodes, fallback: successMessage)
        else { return }
        show(message)
    }
}
