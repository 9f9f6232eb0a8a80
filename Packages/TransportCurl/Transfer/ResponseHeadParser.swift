package import HTTPTypes
package import Transport

/// Collects a response head from the header lines libcurl hands to the header callback.
///
/// libcurl reports every head it sees: interim `1xx` heads, the heads of redirect hops it
/// does not follow, and finally trailers after a chunked body. The parser keeps only the
/// last non-interim head and ignores trailers; an interim head is reported
/// (``Event/interimComplete``) and readable until the next line, then dropped.
///
/// The loop thread does the least it can: it checks the status line and that each field name
/// is an HTTP token, notes the three fields the engine acts on (`Content-Length`,
/// `Content-Encoding`, `Location`) with byte comparisons, and appends each field line to one
/// byte buffer. The response carries that buffer as a `ReceivedResponseHead`
/// (``receivedHead()``), which builds the `HTTPFields` only when the caller reads the head.
///
/// `package` rather than internal so that the fuzz target in `Tests/Fuzz` can drive it with
/// the bytes of arbitrary heads; nothing outside this package sees it.
package struct ResponseHeadParser: Sendable {
    /// What the last line meant.
    package enum Event: Equatable {
        /// Keep going.
        case `continue`
        /// A final (non-`1xx`) head is complete.
        case headComplete
        /// An interim (`1xx`) head is complete: ``makeHead()`` builds it until the next line,
        /// which starts the head after it.
        case interimComplete
        /// The head section grew past the limit.
        case tooLarge
        /// The line is not valid HTTP.
        case invalid(String)
    }

    /// The status code of the head being read, `0` before its status line.
    package private(set) var status = 0
    /// The reason phrase of the status line, empty when it has none.
    package private(set) var reason = ""
    /// Whether a final head is complete; the lines after it (trailers) are ignored.
    package private(set) var isComplete = false
    /// The `Content-Length` of the head, when it has a valid one: digits only, never negative.
    package private(set) var contentLength: Int64?
    /// Whether the head has a `Content-Encoding` field.
    package private(set) var hasContentEncoding = false
    /// The `Location` field's value, if any.
    package private(set) var location: String?
    /// The field lines, each without its CRLF and followed by a `\n`.
    private var lines: [UInt8] = []
    private var bytes = 0
    /// Whether the head read so far was an interim one, ended by its blank line; the next line
    /// starts a new head.
    private var isInterimComplete = false

    /// A parser at the start of a head.
    package init() {}

    /// A parser for a new head after `bytes` bytes of earlier heads.
    private init(bytes: Int) { self.bytes = bytes }

    /// Consumes one line, including its CRLF.
    package mutating func consume(_ line: UnsafeRawBufferPointer, limit: Int) -> Event {
        if isComplete { return .continue }  // Trailers: not part of the head.
        if isInterimComplete { self = ResponseHeadParser(bytes: bytes) }
        bytes += line.count
        if bytes > limit { return .tooLarge }
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if text.isEmpty {
            guard status != 0 else { return .invalid("a blank line before any status line") }
            if (100..<200).contains(status) {
                // An interim response (100 Continue, 103 Early Hints, 104 Upload Resumption
                // Supported): the real head follows. It stays readable until the next line.
                isInterimComplete = true
                return .interimComplete
            }
            isComplete = true
            return .headComplete
        }
        if text.count >= 5, text[0] == UInt8(ascii: "H"), text[1] == UInt8(ascii: "T"), text[2] == UInt8(ascii: "T"),
            text[3] == UInt8(ascii: "P"), text[4] == UInt8(ascii: "/")
        {
            return parseStatusLine(text)
        }
        let isContinuation = text[0] == UInt8(ascii: " ") || text[0] == UInt8(ascii: "\t")
        if isContinuation {
            guard !lines.isEmpty else { return .invalid("a continuation line before any header field") }
        } else {
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
                return .invalid("a header line without a field name and colon")
            }
            let name = UnsafeRawBufferPointer(rebasing: text[0..<colon])
            guard name.allSatisfy(Self.isTokenByte) else {
                let shown = String(decoding: name.prefix(64), as: UTF8.self)
                return .invalid("the header name \"\(shown)\" is not a valid token")
            }
            noteField(text, colon: colon)
        }
        // One allocation for a typical head rather than a doubling per few fields.
        if lines.isEmpty { lines.reserveCapacity(512) }
        lines.append(contentsOf: text)
        lines.append(UInt8(ascii: "\n"))
        return .continue
    }

    /// Records the fields the engine acts on before the head is built.
    private mutating func noteField(_ text: UnsafeRawBufferPointer, colon: Int) {
        switch colon {
        case 14 where Self.equalsIgnoringCase(text, Self.contentLengthName):
            contentLength = Self.decimal(Self.trimmed(UnsafeRawBufferPointer(rebasing: text[(colon + 1)...])))
        case 16 where Self.equalsIgnoringCase(text, Self.contentEncodingName):
            hasContentEncoding = true
        case 8 where Self.equalsIgnoringCase(text, Self.locationName):
            let value = Self.trimmed(UnsafeRawBufferPointer(rebasing: text[(colon + 1)...]))
            location = String(decoding: value, as: UTF8.self)
        default:
            break
        }
    }

    /// The head for the response: the status and the field lines, built into an
    /// `HTTPResponse` when the response's head is first read.
    package func receivedHead() -> ReceivedResponseHead {
        ReceivedResponseHead(status: status, reason: reason, lines: lines)
    }

    /// The head as an `HTTPResponse`, built now.
    package func makeHead() -> HTTPResponse {
        receivedHead().response
    }

    private mutating func parseStatusLine(_ text: UnsafeRawBufferPointer) -> Event {
        // "HTTP/1.1 200 OK" or "HTTP/2 200": the version, one or more spaces, three digits, and
        // after one or more spaces the reason, if any.
        var index = 5
        while index < text.count, text[index] != UInt8(ascii: " ") { index += 1 }
        while index < text.count, text[index] == UInt8(ascii: " ") { index += 1 }
        var code = 0
        var digits = 0
        while index < text.count, text[index] != UInt8(ascii: " ") {
            let digit = Int(text[index]) - Int(UInt8(ascii: "0"))
            guard (0...9).contains(digit), digits < 3 else { return malformedStatusLine(text) }
            code = code * 10 + digit
            digits += 1
            index += 1
        }
        guard digits == 3, (100..<600).contains(code) else { return malformedStatusLine(text) }
        while index < text.count, text[index] == UInt8(ascii: " ") { index += 1 }
        self = ResponseHeadParser(bytes: bytes)
        status = code
        reason = String(decoding: UnsafeRawBufferPointer(rebasing: text[index...]), as: UTF8.self)
        return .continue
    }

    private func malformedStatusLine(_ text: UnsafeRawBufferPointer) -> Event {
        .invalid("the status line \"\(String(decoding: text.prefix(64), as: UTF8.self))\" is malformed")
    }

    /// Whether `byte` may appear in a field name: an HTTP token character (RFC 9110 §5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let contentLengthName = Array("content-length".utf8)
    private static let contentEncodingName = Array("content-encoding".utf8)
    private static let locationName = Array("location".utf8)

    /// Whether `text` starts with `lowercase` in any letter case (`lowercase` is ASCII lowercase).
    private static func equalsIgnoringCase(_ text: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        guard text.count >= lowercase.count else { return false }
        for index in 0..<lowercase.count {
            let byte = text[index]
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != lowercase[index] { return false }
        }
        return true
    }

    /// The bytes without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var first = 0
        var end = bytes.count
        while first < end, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
        while end > first, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[first..<end])
    }

    /// A `Content-Length` value: one or more ASCII digits (RFC 9110 §8.6), at most 18 so that it
    /// fits an `Int64`; `nil` for anything else, a sign included.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
