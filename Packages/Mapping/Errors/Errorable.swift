public import Transport

/// A description of an outcome a person may need to hear about: a code, the codes that
/// mean success, and a message.
///
/// Whatever tells a person about the outcome (an application's alert, banner or log) shows
/// an `Errorable`'s ``message`` when ``isFailure`` is `true`. Mapping presents nothing
/// itself: the Feedback module's `Warnable` and `Informable` build on this protocol (its
/// codes and success codes) to decide what a person is told. Two kinds conform:
///
/// - `String`: a message and nothing else, for failures that are already known, such as a
///   transport error's text (see the `String` conformance below);
/// - server error types decoded from the body, which adopt ``JSONErrorable``.
///
/// Every requirement has a default: no code, success code `200`, no message, and a failure
/// when there is a code outside the success codes.
///
/// An `Errorable` is ``/Transport/MessageDescribable`` through its ``code`` and ``message``,
/// which is how Feedback's message catalog reads it without importing Mapping.
public protocol Errorable: MessageDescribable {
    /// The codes that mean success; `[200]` by default.
    var successCodes: Set<BusinessCode> { get }
    /// The code the server sent; `nil` by default.
    var code: BusinessCode? { get }
    /// The message to show; `nil` by default.
    var message: String? { get }
    /// Whether this describes a failure; by default, whether there is a ``code`` and
    /// ``successCodes`` does not contain it (no code, nothing to warn about).
    var isFailure: Bool { get }
}

extension Errorable {
    /// `[200]`, the success code of ``StandardEnvelope``.
    public var successCodes: Set<BusinessCode> { [200] }
    /// `nil`.
    public var code: BusinessCode? { nil }
    /// `nil`.
    public var message: String? { nil }
    /// Whether there is a ``code`` and ``successCodes`` does not contain it.
    public var isFailure: Bool {
        guard let code else { return false }
        return !successCodes.contains(code)
    }
    /// ``code``, for a message catalog.
    public var businessCode: BusinessCode? { code }
    /// ``message``, for a message catalog.
    public var businessMessage: String? { message }
}

/// A plain message is an `Errorable`: the message is the string itself.
///
/// A string has no code and no success codes (`code` is `nil`, `successCodes` is empty),
/// and it is always a failure: a string stands for a failure already decided elsewhere,
/// such as `"The network connection was lost."`, so a presenter shows it as it is.
extension String: Errorable {
    /// None: a plain message has no codes.
    public var successCodes: Set<BusinessCode> { [] }
    /// The string itself.
    public var message: String? { self }
    /// Always `true`.
    public var isFailure: Bool { true }
}

/// An error type the server describes in its body, decoded at a key path.
///
/// Declare the fields your server sends and, when the error object is nested, where it
/// is; ``ResponseDecoder/decodeErrorable(_:from:)-(_,DataResponse)`` reads it from a
/// response whatever its status:
///
/// ```swift
/// struct WeatherError: JSONErrorable {
///     static let keyPath: JSONKeyPath = "error"     // {"error": {"code": "E42", "message": "…"}}
///     var code: BusinessCode?
///     var message: String?
///     var successCodes: Set<BusinessCode> { ["OK"] }
/// }
/// ```
public protocol JSONErrorable: Errorable, Decodable {
    /// Where the error object is in the body; ``JSONKeyPath/root`` (the whole body) by default.
    static var keyPath: JSONKeyPath { get }
}

extension JSONErrorable {
    /// The whole body.
    public static var keyPath: JSONKeyPath { .root }
}
