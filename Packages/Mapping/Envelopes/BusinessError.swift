public import HTTPTypes
public import Transport

/// A well-formed answer whose envelope reports a failure: a code outside the success codes.
///
/// The transfer worked and the body decoded; the server said no. Show ``message`` to the
/// person (the server's own words, or a sentence naming the code when it sent none), and
/// branch on ``code``:
///
/// ```swift
/// do {
///     let forecast = try decoder.decodeEnvelope(Forecast.self, from: response)
/// } catch let error as BusinessError where error.code == 401 {
///     // sign in again
/// } catch let error as BusinessError {
///     print(error.message)
/// }
/// ```
///
/// Before it is thrown, the error is given to the envelope format's
/// ``EnvelopeFormat/route(_:)``, so chosen codes can be handled in one place.
///
/// A message catalog (Feedback's `Warnable`) describes it by ``code`` and ``serverMessage``: it
/// is ``/Transport/MessageDescribable``.
public struct BusinessError: Error, Sendable, Hashable, CustomStringConvertible, ActionableError,
    MessageDescribable
{
    /// The code the server sent.
    public var code: BusinessCode
    /// The envelope's message, when the server sent one, as it sent it: neither redacted nor
    /// escaped for a terminal. Show ``message``.
    public var serverMessage: String?
    /// The URL of the response, when known: unredacted, as the request had it, for programs;
    /// ``message`` and ``description`` show it redacted.
    public var url: String?
    /// The HTTP status of the response, when known. Servers differ: some send `200 OK` with
    /// every envelope, others a matching 4xx or 5xx.
    public var status: HTTPResponse.Status?
    /// The envelope's data, when it carried any: some servers put field errors there.
    public var data: JSONValue?

    /// Creates a business error.
    ///
    /// - Parameters:
    ///   - code: The code the server sent.
    ///   - serverMessage: The envelope's message, if any.
    ///   - url: The URL of the response, if known.
    ///   - status: The HTTP status, if known.
    ///   - data: The envelope's data, if any.
    public init(
        code: BusinessCode,
        serverMessage: String? = nil,
        url: String? = nil,
        status: HTTPResponse.Status? = nil,
        data: JSONValue? = nil
    ) {
        self.code = code
        self.serverMessage = serverMessage
        self.url = url
        self.status = status
        self.data = data
    }

    /// The server's message, or, when it sent none, a sentence naming the code and the URL,
    /// with credentials redacted (Transport's `LogRedaction.redactedText`).
    public var message: String {
        if let serverMessage { return LogRedaction.redactedText(serverMessage) }
        let target = url.map { " for \(LogRedaction.redactedURL($0))" } ?? ""
        return "The server refused the request\(target) with code \(code.rawValue) and no message."
    }

    /// ``code``, for a message catalog.
    public var businessCode: BusinessCode? { code }
    /// ``serverMessage``, for a message catalog: the server's words as it sent them.
    public var businessMessage: String? { serverMessage }

    /// The code and the server's message, without the data.
    public var head: EnvelopeHead { EnvelopeHead(code: code, message: serverMessage) }

    /// `code <code>: <message>` followed by the URL (redacted) and the HTTP status when known.
    public var description: String {
        var text = "code \(code.rawValue): \(message)"
        if let url { text += " [url: \(LogRedaction.redactedURL(url))]" }
        if let status { text += " [HTTP \(status.code) \(status.reasonPhrase)]" }
        return text
    }
}
