import HTTPTypes

/// Builds an `HTTPResponse` from the header lines libcurl hands to the header callback.
///
/// libcurl reports every head it sees: interim `1xx` heads, the heads of redirect hops it
/// does not follow, and finally trailers after a chunked body. The parser keeps only the
/// last non-interim head and ignores trailers.
struct ResponseHeadParser {
    /// What the last line meant.
    enum Event: Equatable {
        /// Keep going.
        case `continue`
        /// A final (non-`1xx`) head is complete.
        case headComplete
        /// The head section grew past the limit.
        case tooLarge
        /// The line is not valid HTTP.
        case invalid(String)
    }

    private(set) var status = 0
    private(set) var reason = ""
    private(set) var fields = HTTPFields()
    private(set) var isComplete = false
    /// The `Content-Length` of the head, when it has a valid one.
    private(set) var contentLength: Int64?
    /// Whether the head has a `Content-Encoding` field.
    private(set) var hasContentEncoding = false
    private var bytes = 0

    /// A parser at the start of a head.
    init() {}

    /// A parser for a new head after `bytes` bytes of earlier heads.
    private init(bytes: Int) { self.bytes = bytes }

    /// The parsed head.
    var head: HTTPResponse {
        HTTPResponse(status: .init(code: status, reasonPhrase: reason), headerFields: fields)
    }

    /// Consumes one line, including its CRLF.
    mutating func consume(_ line: UnsafeRawBufferPointer, limit: Int) -> Event {
        if isComplete { return .continue }  // Trailers: not part of the head.
        bytes += line.count
        if bytes > limit { return .tooLarge }
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if text.isEmpty {
            guard status != 0 else { return .invalid("a blank line before any status line") }
            if (100..<200).contains(status) {
                // An interim response (100 Continue, 103 Early Hints): the real head follows.
                self = ResponseHeadParser(bytes: bytes)
                return .continue
            }
            isComplete = true
            return .headComplete
        }
        if text.starts(with: Self.httpPrefix) {
            return parseStatusLine(text)
        }
        if text[0] == UInt8(ascii: " ") || text[0] == UInt8(ascii: "\t") {
            // An obsolete folded continuation line: join it to the previous field's value.
            guard let last = fields.last else { return .invalid("a continuation line before any header field") }
            let continuation = String(decoding: text, as: UTF8.self).trimmingSpaces
            fields.removeLast()
            fields.append(HTTPField(name: last.name, value: last.value + " " + continuation))
            return .continue
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
            return .invalid("a header line without a colon")
        }
        let nameText = String(decoding: text[0..<colon], as: UTF8.self)
        guard let name = HTTPField.Name(nameText) else {
            return .invalid("the header name \"\(nameText.prefix(64))\" is not a valid token")
        }
        let value = String(decoding: text[(colon + 1)...], as: UTF8.self).trimmingSpaces
        if name == .contentLength {
            contentLength = Int64(value)
        } else if name == .contentEncoding {
            hasContentEncoding = true
        }
        fields.append(HTTPField(name: name, value: value))
        return .continue
    }

    private mutating func parseStatusLine(_ text: UnsafeRawBufferPointer) -> Event {
        // "HTTP/1.1 200 OK" or "HTTP/2 200"
        let parts = text.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[1].count == 3, let code = Int(String(decoding: parts[1], as: UTF8.self)),
            (100..<600).contains(code)
        else {
            return .invalid("the status line \"\(String(decoding: text.prefix(64), as: UTF8.self))\" is malformed")
        }
        self = ResponseHeadParser(bytes: bytes)
        status = code
        reason = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : ""
        return .continue
    }

    private static let httpPrefix = Array("HTTP/".utf8)
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
