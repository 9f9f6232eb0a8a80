public import Transport

/// The code and message of an envelope, without its data.
///
/// ``ResponseDecoder/success(from:)-(DataResponse)`` returns it, so a caller that only needs
/// to know an operation succeeded still has the server's message to show.
///
/// A message catalog (Feedback's `Informable`) announces it by its code and message: it is
/// ``/Transport/MessageDescribable``.
public struct EnvelopeHead: Sendable, Hashable, MessageDescribable {
    /// The result code.
    public var code: BusinessCode
    /// The server's message, when it sent one.
    public var message: String?

    /// Creates an envelope head.
    ///
    /// - Parameters:
    ///   - code: The result code.
    ///   - message: The server's message, if any.
    public init(code: BusinessCode, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// ``code``.
    public var businessCode: BusinessCode? { code }
    /// ``message``.
    public var businessMessage: String? { message }
}
