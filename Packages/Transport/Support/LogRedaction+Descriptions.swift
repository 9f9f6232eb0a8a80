import HTTPTypes

// Requests and responses describe themselves through the one redaction rule, so that
// `print(request)`, string interpolation or a test's failure report never shows a credential.

extension TransportRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// `METHOD URL`, the URL with its credentials redacted (``LogRedaction/redactedURL(_:)``).
    public var description: String { "\(head.method) \(LogRedaction.redactedURL(url))" }

    /// The ``description`` followed by the header fields, one per line, credential values
    /// redacted (`HTTPFields.redactedForLogging`); never the body.
    public var debugDescription: String {
        head.headerFields.isEmpty ? description : description + "\n" + head.headerFields.redactedForLogging
    }
}

extension TransportResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `STATUS URL`, the URL with its credentials redacted (``LogRedaction/redactedURL(_:)``).
    public var description: String { "\(head.status) \(LogRedaction.redactedURL(url))" }

    /// The ``description`` followed by the header fields, one per line, credential values
    /// redacted (`HTTPFields.redactedForLogging`).
    public var debugDescription: String {
        head.headerFields.isEmpty ? description : description + "\n" + head.headerFields.redactedForLogging
    }
}

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// `STATUS URL (N bytes)`, the URL with its credentials redacted
    /// (``LogRedaction/redactedURL(_:)``).
    public var description: String { "\(head.status) \(LogRedaction.redactedURL(url)) (\(body.count) bytes)" }

    /// The ``description`` followed by the header fields, one per line, credential values
    /// redacted (`HTTPFields.redactedForLogging`); never the body.
    public var debugDescription: String {
        head.headerFields.isEmpty ? description : description + "\n" + head.headerFields.redactedForLogging
    }
}
