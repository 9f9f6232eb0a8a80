import CCurl
package import HTTPTypes
package import Transport

/// Collects a response head from the header lines libcurl hands to the header callback.
///
/// libcurl reports every head it sees: interim `1xx` heads, the heads of redirect hops it
/// does not follow, and finally trailers after a chunked body. The parser keeps only the
/// last non-interim head and ignores trailers; an interim head is reported
/// (``Event/interimComplete``) and readable until the next line, then dropped.
///
/// The parsing is C (`parley_head_consume` in `CCurlShims.h`), so that libcurl's header
/// callback (`parley_head_callback`) runs no Swift for a line that neither ends a head nor is
/// refused: it checks the status line and that each field name is an HTTP token, notes the
/// three fields the engine acts on (`Content-Length`, `Content-Encoding`, `Location`) with
/// byte comparisons, and appends each field line to one byte buffer, which the engine keeps
/// with the easy handle from one transfer to the next. The response carries a copy of the
/// lines as a `ReceivedResponseHead` (``receivedHead()``), which builds the `HTTPFields` only
/// when the caller reads the head.
///
/// A value of this type is a reference to its state: copies share it. `package` rather than
/// internal so that the fuzz target in `Tests/Fuzz` can drive it with the bytes of arbitrary
/// heads; nothing outside this package sees it.
package struct ResponseHeadParser {
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

    /// The C state, allocated once and freed with the last copy.
    private final class Storage {
        let head: UnsafeMutablePointer<parley_head>

        init() {
            head = .allocate(capacity: 1)
            parley_head_init(head)
        }

        deinit {
            parley_head_free(head)
            head.deallocate()
        }
    }

    private let storage = Storage()

    /// The C state, for libcurl's header callback (`parley_easy_set_head`).
    var head: UnsafeMutablePointer<parley_head> { storage.head }

    /// A parser at the start of a head.
    package init() {}

    /// Starts a new hop's head: nothing read, nothing counted against the limit.
    mutating func restart() {
        parley_head_restart(storage.head, 0)
    }

    /// The status code of the head being read, `0` before its status line.
    package var status: Int { Int(storage.head.pointee.status) }
    /// The reason phrase of the status line, empty when it has none.
    package var reason: String {
        let reason = storage.head.pointee.reason
        guard reason.count > 0, let bytes = reason.bytes else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: reason.count), as: UTF8.self)
    }
    /// Whether a final head is complete; the lines after it (trailers) are ignored.
    package var isComplete: Bool { storage.head.pointee.complete != 0 }
    /// The `Content-Length` of the head, when it has a valid one: digits only, never negative.
    package var contentLength: Int64? {
        let length = storage.head.pointee.content_length
        return length < 0 ? nil : length
    }
    /// Whether the head has a `Content-Encoding` field.
    package var hasContentEncoding: Bool { storage.head.pointee.has_content_encoding != 0 }
    /// The `Location` field's value, if any.
    package var location: String? {
        let head = storage.head.pointee
        guard head.has_location != 0, let bytes = head.lines.bytes else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: bytes + head.location_offset, count: head.location_length),
            as: UTF8.self)
    }
    /// Header bytes received since the transfer started (the header callback counts them).
    var bytesMoved: Int64 {
        get { storage.head.pointee.moved }
        nonmutating set { storage.head.pointee.moved = newValue }
    }

    /// Consumes one line, including its CRLF.
    package mutating func consume(_ line: UnsafeRawBufferPointer, limit: Int) -> Event {
        storage.head.pointee.limit = Int64(limit)
        let code = parley_head_consume(
            storage.head, line.baseAddress?.assumingMemoryBound(to: UInt8.self), line.count)
        return event(code)
    }

    /// The event of a code `parley_head_consume` returned.
    func event(_ code: Int32) -> Event {
        switch Int(code) {
        case PARLEY_HEAD_CONTINUE: return .continue
        case PARLEY_HEAD_COMPLETE: return .headComplete
        case PARLEY_HEAD_INTERIM: return .interimComplete
        case PARLEY_HEAD_TOO_LARGE: return .tooLarge
        default: return .invalid(problem)
        }
    }

    /// What was wrong with the line refused last.
    private var problem: String {
        let head = storage.head.pointee
        let text = withUnsafeBytes(of: head.problem_text) { raw in
            String(decoding: raw.prefix(head.problem_length), as: UTF8.self)
        }
        switch Int(head.problem) {
        case PARLEY_HEAD_PROBLEM_BLANK_BEFORE_STATUS: return "a blank line before any status line"
        case PARLEY_HEAD_PROBLEM_CONTINUATION_FIRST:
            return "a continuation line before any header field"
        case PARLEY_HEAD_PROBLEM_NO_COLON: return "a header line without a field name and colon"
        case PARLEY_HEAD_PROBLEM_BAD_NAME: return "the header name \"\(text)\" is not a valid token"
        case PARLEY_HEAD_PROBLEM_BAD_STATUS_LINE: return "the status line \"\(text)\" is malformed"
        default: return "the head could not be stored (out of memory)"
        }
    }

    /// The head for the response: the status and a copy of the field lines, built into an
    /// `HTTPResponse` when the response's head is first read.
    package func receivedHead() -> ReceivedResponseHead {
        let lines = storage.head.pointee.lines
        let copy = lines.count > 0 ? Array(UnsafeBufferPointer(start: lines.bytes, count: lines.count)) : []
        return ReceivedResponseHead(
            status: status, reason: reason, lines: copy, nameSignature: storage.head.pointee.name_signature)
    }

    /// The head as an `HTTPResponse`, built now.
    package func makeHead() -> HTTPResponse {
        receivedHead().response
    }
}
