package import HTTPTypes
import Transport

/// Collects a response head from the header lines libcurl hands to the header callback.
///
/// libcurl reports every head it sees: interim `1xx` heads, the heads of redirect hops it
/// does not follow, and finally trailers after a chunked body. The parser keeps only the
/// last non-interim head and ignores trailers.
///
/// The loop thread does the least it can: it checks the status line, notes the three fields
/// the engine acts on (`Content-Length`, `Content-Encoding`, `Location`) with byte
/// comparisons, and appends each field line to one byte buffer. Building the validated
/// `HTTPFields` (``makeHead()``) is left to the thread that receives the response, so the
/// loop's time per request stays close to libcurl's own.
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

    /// A parser at the start of a head.
    package init() {}

    /// A parser for a new head after `bytes` bytes of earlier heads.
    private init(bytes: Int) { self.bytes = bytes }

    /// Consumes one line, including its CRLF.
    package mutating func consume(_ line: UnsafeRawBufferPointer, limit: Int) -> Event {
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
        let isContinuation = text[0] == UInt8(ascii: " ") || text[0] == UInt8(ascii: "\t")
        if isContinuation {
            guard !lines.isEmpty else { return .invalid("a continuation line before any header field") }
        } else {
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
                return .invalid("a header line without a field name and colon")
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
        let name = UnsafeRawBufferPointer(rebasing: text[0..<colon])
        if Self.equalsIgnoringCase(name, Self.contentLengthName) {
            contentLength = Self.decimal(Self.trimmed(String(decoding: text[(colon + 1)...], as: UTF8.self)))
        } else if Self.equalsIgnoringCase(name, Self.contentEncodingName) {
            hasContentEncoding = true
        } else if Self.equalsIgnoringCase(name, Self.locationName) {
            location = Self.trimmed(String(decoding: text[(colon + 1)...], as: UTF8.self))
        }
    }

    /// Builds the validated head: each field name must be an HTTP token.
    ///
    /// - Parameter url: The response's URL, for the error message.
    /// - Throws: ``TransportError`` with category `.invalidResponse` for a malformed field.
    package func makeHead(url: String) throws -> HTTPResponse {
        var fields = HTTPFields()
        fields.reserveCapacity(16)
        var start = 0
        while start < lines.count {
            let end = lines[start...].firstIndex(of: UInt8(ascii: "\n")) ?? lines.count
            let line = lines[start..<end]
            start = end + 1
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                // An obsolete folded continuation line: join it to the previous field's value.
                guard let last = fields.last else { continue }
                fields.removeLast()
                let joined = last.value + " " + Self.trimmed(String(decoding: line, as: UTF8.self))
                fields.append(HTTPField(name: last.name, value: joined))
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name: HTTPField.Name
            if let known = Self.knownName(line[..<colon]) {
                name = known
            } else {
                let nameText = String(decoding: line[..<colon], as: UTF8.self)
                guard let parsed = HTTPField.Name(nameText) else {
                    throw TransportError(
                        .invalidResponse,
                        message: "The response from \(url) has a malformed head: the header name "
                            + "\"\(nameText.prefix(64))\" is not a valid token.",
                        url: url)
                }
                name = parsed
            }
            let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPResponse(status: .init(code: status, reasonPhrase: reason), headerFields: fields)
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

    /// The field names most responses carry, spelled as registered and in lowercase (as
    /// HTTP/2 sends them), with the name each stands for.
    private static let knownNames: [(spelled: [UInt8], lowercase: [UInt8], name: HTTPField.Name)] = [
        HTTPField.Name.date, .server, .contentType, .contentLength, .connection, .lastModified, .eTag,
        .acceptRanges, .cacheControl, .expires, .vary, .contentEncoding, .transferEncoding, .location, .setCookie,
        .age, .accessControlAllowOrigin, .strictTransportSecurity, .xContentTypeOptions, .via, .retryAfter,
        .wwwAuthenticate, .contentLanguage, .contentDisposition,
    ].map { (Array($0.rawName.utf8), Array($0.canonicalName.utf8), $0) }

    /// The registered name `bytes` spell, when they spell one of ``knownNames`` exactly as
    /// registered or in lowercase: such a name needs no validation and no string of its own.
    /// Any other spelling (`CONTENT-TYPE`) takes the general path, which keeps it as sent.
    private static func knownName(_ bytes: ArraySlice<UInt8>) -> HTTPField.Name? {
        for known in knownNames where known.spelled.count == bytes.count {
            if bytes.elementsEqual(known.spelled) || bytes.elementsEqual(known.lowercase) { return known.name }
        }
        return nil
    }

    private static let httpPrefix = Array("HTTP/".utf8)
    private static let contentLengthName = Array("content-length".utf8)
    private static let contentEncodingName = Array("content-encoding".utf8)
    private static let locationName = Array("location".utf8)

    /// Whether `bytes` spells `lowercase` in any letter case (`lowercase` is ASCII lowercase).
    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != lowercase[index] { return false }
        }
        return true
    }

    /// The bytes without leading and trailing spaces and tabs: the same as trimming the
    /// decoded string, as neither byte occurs inside a multi-byte UTF-8 sequence.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }),
            let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// A `Content-Length` value: one or more ASCII digits (RFC 9110 §8.6), at most 18 so that it
    /// fits an `Int64`; `nil` for anything else, a sign included (`Int64("-5")` would read `-5`).
    private static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int64(text)
    }

    /// The string without leading and trailing spaces and tabs.
    private static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
