import Foundation
package import HTTPTypes
import Synchronization

/// A response head as an engine received it: the status, and the field lines as one buffer of
/// bytes, turned into an `HTTPResponse` only when something reads it.
///
/// A response carries one of these rather than an `HTTPResponse` until its ``TransportResponse/head``
/// or ``DataResponse/head`` is read: a caller that looks at the status and the body only (most
/// collected requests) never pays for one `HTTPField` per header line, their value strings and
/// their validation. The first read builds the `HTTPResponse` and keeps it; every later read,
/// from any thread, gets the same one.
///
/// The lines are `name:value` or a folded continuation (a line starting with a space or a
/// tab), each followed by a `\n`. The engine checks each name is an HTTP token as the line
/// arrives and fails the transfer with `.invalidResponse` otherwise, so building cannot fail;
/// a line that is not a field all the same is left out.
package final class ReceivedResponseHead: Sendable {
    /// The status, with its reason phrase.
    package let status: HTTPResponse.Status
    /// The field lines, each followed by `\n`.
    private let lines: [UInt8]
    /// A field appended after the lines when the head is built (see ``adding(_:)``).
    ///
    /// Written after the head is made only by ``addInPlace(_:)``, whose one caller,
    /// ``LazyResponseHead/appendUnbuilt(_:)``, holds the only reference to this head, which has
    /// not been built: no other thread can read the field while it changes, and a reference
    /// handed on later (to a task, a continuation, a storage behind a lock) is handed on through
    /// the synchronisation that orders the write before any read.
    private nonisolated(unsafe) var added: HTTPField?
    /// The bytes of ``added``'s name and value, 0 without one (a name is never empty), written
    /// with it: read where copying the field out to measure it would count its references.
    private nonisolated(unsafe) var addedByteCount = 0
    /// The ``FieldNameSet/signatureBit(of:)`` of every field name in the lines: what
    /// ``head(keeping:)`` checks before it reads a line.
    package let nameSignature: UInt64
    /// The `HTTPResponse`, once built; retained here, released by `deinit`.
    private let built = Atomic<Unmanaged<Built>?>(nil)

    /// The head of a received response.
    ///
    /// - Parameters:
    ///   - status: The status code, 100 to 599.
    ///   - reason: The reason phrase, empty when there was none.
    ///   - lines: The field lines, each followed by `\n`.
    ///   - nameSignature: The signature of the names in `lines`, when the caller computed it
    ///     as they arrived (the engine does); `nil` to have it computed from the lines.
    package init(status: Int, reason: String, lines: [UInt8], nameSignature: UInt64? = nil) {
        self.status = HTTPResponse.Status(code: status, reasonPhrase: reason)
        self.lines = lines
        self.added = nil
        self.nameSignature = nameSignature ?? Self.signature(of: lines)
    }

    private init(status: HTTPResponse.Status, lines: [UInt8], added: HTTPField, nameSignature: UInt64) {
        self.status = status
        self.lines = lines
        self.added = added
        self.addedByteCount = Self.byteCount(of: added)
        self.nameSignature = nameSignature
    }

    /// The same head with `field` after its lines: a new head that shares the lines, so that a
    /// field is added to a head nobody has read without building it.
    ///
    /// - Parameter field: The field to append (the head must have no field added already; a
    ///   second one replaces the first).
    package func adding(_ field: HTTPField) -> ReceivedResponseHead {
        ReceivedResponseHead(status: status, lines: lines, added: field, nameSignature: nameSignature)
    }

    /// Appends `field` after the lines of this head, in place: for
    /// ``LazyResponseHead/appendUnbuilt(_:)`` alone, while it holds the only reference to a
    /// head that has not been built (see ``added``).
    func addInPlace(_ field: HTTPField) {
        added = field
        addedByteCount = Self.byteCount(of: field)
    }

    private static func byteCount(of field: HTTPField) -> Int {
        field.name.rawName.utf8.count + field.value.utf8.count
    }

    /// Whether a field has been appended after the lines.
    var hasAddedField: Bool { addedByteCount > 0 }

    /// Whether ``response`` has been built: reading it costs nothing more.
    package var isBuilt: Bool { built.load(ordering: .acquiring) != nil }

    /// How many bytes the field lines take, an estimate of the head's size without building it.
    package var byteCount: Int { lines.count + addedByteCount }

    /// The head with the fields whose names are among `names` (in any case), in the order
    /// received: what a reader that needs a few fields asks instead of ``response``, which
    /// makes every field. Not kept: each call scans the lines again.
    ///
    /// - Parameter names: The names of the fields to keep.
    /// - Returns: The status and those fields; ``response`` itself, with every field, when it
    ///   is built already.
    package func head(keeping names: FieldNameSet) -> HTTPResponse {
        if let built = built.load(ordering: .acquiring) { return built.takeUnretainedValue().response }
        return HTTPResponse(status: status, headerFields: fields(keeping: names) ?? [:])
    }

    /// The fields of ``head(keeping:)`` alone, and `nil` when the head has not been built and
    /// its ``nameSignature`` rules all of them out (a name that shares a signature bit with one
    /// of the lines' gives an empty list): no `HTTPResponse` or `HTTPFields` is made (each
    /// allocates) for a reader that only asks whether a few fields are there, as a cache does
    /// of every answer.
    ///
    /// - Parameter names: The names of the fields to keep.
    /// - Returns: Those fields, in the order received; every field, when the head is built.
    package func fields(keeping names: FieldNameSet) -> HTTPFields? {
        if let built = built.load(ordering: .acquiring) { return built.takeUnretainedValue().response.headerFields }
        let addedIsKept = hasAddedField && added.map { names.contains($0.name) } ?? false
        let mayBeInLines = names.mayOccur(in: nameSignature)
        // None of the names arrived: no line to read.
        guard mayBeInLines || addedIsKept else { return nil }
        var fields = mayBeInLines ? makeFields(reserving: 0, named: names.name(spelledBy:)) : [:]
        if addedIsKept, let added { fields.append(added) }
        return fields
    }

    deinit {
        built.load(ordering: .acquiring)?.release()
    }

    /// The head as an `HTTPResponse`: built on the first read, the same value afterwards.
    package var response: HTTPResponse {
        if let built = built.load(ordering: .acquiring) { return built.takeUnretainedValue().response }
        let made = Unmanaged.passRetained(Built(response: makeResponse()))
        let (stored, existing) = built.compareExchange(
            expected: nil, desired: made, ordering: .acquiringAndReleasing)
        guard !stored, let existing else { return made.takeUnretainedValue().response }
        // Another thread built it first: keep its value, so that every read sees one head.
        made.release()
        return existing.takeUnretainedValue().response
    }

    /// The built head, boxed so that one atomic pointer can hold it.
    private final class Built: Sendable {
        let response: HTTPResponse
        init(response: HTTPResponse) { self.response = response }
    }

    /// Builds the `HTTPResponse` from the lines.
    private func makeResponse() -> HTTPResponse {
        var fields = makeFields(reserving: 16, named: Self.name)
        if let added { fields.append(added) }
        return HTTPResponse(status: status, headerFields: fields)
    }

    /// The fields of the lines that `named` gives a name: every field for ``name(_:)``, or
    /// those a reader asked for.
    private func makeFields(
        reserving capacity: Int, named: (UnsafeBufferPointer<UInt8>) -> HTTPField.Name?
    ) -> HTTPFields {
        var fields = HTTPFields()
        if capacity > 0 { fields.reserveCapacity(capacity) }
        // Whether the last line was a field kept: a folded line continues only that one.
        var lastKept = false
        Self.forEachLine(of: lines) { line in
            guard let first = line.first else { return }
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // An obsolete folded continuation line: join it to the previous field's value.
                guard lastKept, let last = fields.last else { return }
                fields.removeLast()
                let joined = last.value + " " + String(decoding: Self.trimmed(line), as: UTF8.self)
                fields.append(HTTPField(name: last.name, value: joined))
                return
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
            guard let name = named(UnsafeBufferPointer(rebasing: line[..<colon])) else {
                lastKept = false
                return
            }
            let value = String(
                decoding: Self.trimmed(UnsafeBufferPointer(rebasing: line[(colon + 1)...])), as: UTF8.self)
            fields.append(HTTPField(name: name, value: value))
            lastKept = true
        }
        return fields
    }

    /// Calls `body` with each line of `lines`, without its `\n`.
    private static func forEachLine(of lines: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        lines.withUnsafeBufferPointer { lines in
            var start = 0
            while start < lines.count {
                let end = endOfLine(in: lines, from: start)
                body(UnsafeBufferPointer(rebasing: lines[start..<end]))
                start = end + 1
            }
        }
    }

    /// The field name `bytes` spell: one of ``knownNames`` without a string of its own or a
    /// check, any other checked as a token; `nil` for one that is not.
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPField.Name? {
        guard let start = bytes.baseAddress else { return nil }
        for known in knownNames where known.spelled.count == bytes.count {
            if memcmp(start, known.spelled, bytes.count) == 0 || memcmp(start, known.lowercase, bytes.count) == 0 {
                return known.name
            }
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self))
    }

    /// The signature of the field names in `lines`: every line but a folded one (which starts
    /// with a space or a tab) that has a colon after its first byte.
    private static func signature(of lines: [UInt8]) -> UInt64 {
        var signature: UInt64 = 0
        forEachLine(of: lines) { line in
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t"),
                let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0
            else { return }
            signature |= FieldNameSet.signatureBit(of: UnsafeBufferPointer(rebasing: line[..<colon]))
        }
        return signature
    }

    /// The index of the `\n` that ends the line at `start`, or the end of `lines`.
    private static func endOfLine(in lines: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = lines.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), lines.count - start)
        else { return lines.count }
        return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
    }

    /// The field names most responses carry, spelled as registered and in lowercase (as
    /// HTTP/2 sends them), with the name each stands for. Any other spelling (`CONTENT-TYPE`)
    /// takes the general path, which keeps it as sent.
    private static let knownNames: [(spelled: [UInt8], lowercase: [UInt8], name: HTTPField.Name)] = [
        HTTPField.Name.date, .server, .contentType, .contentLength, .connection, .lastModified, .eTag,
        .acceptRanges, .cacheControl, .expires, .vary, .contentEncoding, .transferEncoding, .location, .setCookie,
        .age, .accessControlAllowOrigin, .strictTransportSecurity, .xContentTypeOptions, .via, .retryAfter,
        .wwwAuthenticate, .contentLanguage, .contentDisposition,
    ].map { (Array($0.rawName.utf8), Array($0.canonicalName.utf8), $0) }

    /// The bytes without leading and trailing spaces and tabs: the same as trimming the
    /// decoded string, as neither byte occurs inside a multi-byte UTF-8 sequence.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var first = 0
        var end = bytes.count
        while first < end, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
        while end > first, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[first..<end])
    }
}
