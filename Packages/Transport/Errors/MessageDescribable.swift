/// A failure, or a server's answer, that a message catalog can put in a person's words.
///
/// Feedback's `MessageCatalog` reads errors and values through this protocol alone, so it
/// needs to know no module but Transport: a module above (Mapping, Forms, a feature) makes its
/// own typed errors describable, and the catalog names them without importing that module.
/// An outcome is described in one of two ways:
///
/// - by the **business code** a server sent (``businessCode``), with the server's own words
///   (``businessMessage``): Mapping's `BusinessError` and `EnvelopeHead`, and every
///   `Errorable`. The catalog's sentence for that code wins, then the server's words;
/// - by **catalog keys** (``messageKeys``), most specific first: `TransportError` names
///   `transport.connectionRefused`, then `network`; Mapping's `MappingError` names
///   `mapping.typeMismatch`, then `mapping`. The catalog uses the first entry it has, and the
///   last key when it has none of them, with ``messageValues`` filling in its placeholders.
///
/// Every requirement has a default, so a conformance states only what it has:
///
/// ```swift
/// struct QuotaError: Error, ActionableError, MessageDescribable {
///     var message: String { "You have used this month's 1,000 requests." }
///     var messageKeys: [String] { ["weather.quota", "unknown"] }
/// }
/// ```
///
/// A catalog shows nothing for an outcome that is not a failure (``isFailure`` is `false`, or
/// its business code is one the caller counts as success) when it warns, and announces only
/// an outcome whose business code is a success when it informs.
public protocol MessageDescribable: Sendable {
    /// The catalog entries that describe this outcome, most specific first, such as
    /// `["mapping.typeMismatch", "mapping"]`; a catalog uses the first it has, and the last
    /// when it has none. End with a general entry (`network`, `mapping`, `unknown`). Empty by
    /// default: the outcome is described by its ``businessCode``, or by its ``businessMessage``.
    var messageKeys: [String] { get }
    /// The values of the entries' placeholders, by name, such as `["status": "404"]`; none by
    /// default.
    var messageValues: [String: String] { get }
    /// The business code the server sent; `nil` by default.
    var businessCode: BusinessCode? { get }
    /// The words that go with the business code, as their source wrote them (a server's
    /// envelope message), or a message that stands on its own; `nil` by default.
    var businessMessage: String? { get }
    /// Whether the outcome is a failure a person should be warned about; `true` by default.
    var isFailure: Bool { get }
}

extension MessageDescribable {
    /// None.
    public var messageKeys: [String] { [] }
    /// None.
    public var messageValues: [String: String] { [:] }
    /// `nil`.
    public var businessCode: BusinessCode? { nil }
    /// `nil`.
    public var businessMessage: String? { nil }
    /// `true`.
    public var isFailure: Bool { true }
}
