import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore

// The route that checks multipart/form-data bodies with an independent parser: /multipart.
extension MockResponder {
    /// The longest text value `/multipart` repeats in `value`: 64 KiB.
    static let multipartValueLimit = 64 << 10

    /// `/multipart` (POST or PUT): parses a `multipart/form-data` body with MultipartKit as it
    /// streams in, keeping no part whole, and answers
    ///
    /// ```json
    /// {"parts": [{"name": "title", "filename": null, "contentType": null, "length": 5,
    ///             "sha256": "…", "value": "hello"}, …]}
    /// ```
    ///
    /// `name` and `filename` are the `Content-Disposition` parameters exactly as sent, between
    /// their quotes (read as the HTML standard writes them: no backslash escapes, and `%22`,
    /// `%0D`, `%0A` left as they are); `null` when absent. `contentType` is the part's
    /// `Content-Type` or `null`. `value` is the content as text for a part without a `filename`
    /// whose content is UTF-8 of at most 64 KiB, `null` otherwise. A body that is not
    /// `multipart/form-data` is answered 415; one MultipartKit cannot parse, or that ends before
    /// its closing delimiter, 400.
    func multipart(_ request: Request, entry: RequestRecorder.Entry) async throws -> Response {
        guard request.method == .post || request.method == .put else {
            try await drainBody(of: request, into: entry)
            throw RouteError(
                .methodNotAllowed,
                "/multipart accepts POST and PUT, not \(request.method.rawValue)",
                headerFields: [.allow: "POST, PUT"]
            )
        }
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = contentType.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard mediaType == "multipart/form-data" else {
            try await drainBody(of: request, into: entry)
            throw RouteError(
                .unsupportedMediaType, "/multipart needs Content-Type multipart/form-data, not \"\(contentType)\"")
        }
        guard let boundary = MultipartHeader.parameter("boundary", in: contentType), !boundary.isEmpty else {
            try await drainBody(of: request, into: entry)
            throw RouteError(.badRequest, "The Content-Type \"\(contentType)\" has no boundary parameter")
        }

        let parts = try await parseMultipart(request, boundary: boundary, entry: entry)
        return try .json(.object(["parts": .array(parts.map(\.json))]))
    }

    /// Parses a `multipart/form-data` body with MultipartKit as it streams in, hashing each
    /// part's content as it arrives and keeping only the first 64 KiB of each, and reads the
    /// body to its end whatever happens, recording its length.
    ///
    /// - Parameters:
    ///   - request: The request, its body not read yet.
    ///   - boundary: The `boundary` parameter of its `Content-Type`.
    ///   - entry: Where the body length is recorded.
    /// - Returns: The parts, in order.
    /// - Throws: ``RouteError`` (400) when MultipartKit cannot parse the body or it ends before
    ///   its closing delimiter.
    func parseMultipart(
        _ request: Request,
        boundary: String,
        entry: RequestRecorder.Entry
    ) async throws -> [MultipartCollector.Part] {
        let collector = MultipartCollector(valueLimit: MockResponder.multipartValueLimit)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in collector.header(name: name, value: value) }
        parser.onBody = { buffer in collector.body(buffer) }
        parser.onPartComplete = { collector.completePart() }

        // The closing delimiter must be among the last bytes (only CRLF or a short epilogue after it).
        let closing = Array("--\(boundary)--".utf8)
        var tail: [UInt8] = []
        var length = 0
        var failure: String?
        for try await buffer in request.body {
            length += buffer.readableBytes
            entry.setBodyLength(length)
            tail.append(contentsOf: buffer.readableBytesView.suffix(closing.count + 64))
            if tail.count > closing.count + 64 { tail.removeFirst(tail.count - closing.count - 64) }
            guard failure == nil else { continue }  // Keep reading, so the answer is not a reset.
            do {
                try parser.execute(buffer)
            } catch {
                failure = "MultipartKit could not parse the body at or before byte \(length): \(error)"
            }
        }
        entry.setBodyLength(length)
        if let failure { throw RouteError(.badRequest, failure) }
        guard !collector.isInPart, tail.firstRange(of: closing) != nil else {
            throw RouteError(.badRequest, "The multipart body ended before its closing delimiter --\(boundary)--")
        }
        return collector.parts
    }
}

/// Gathers what MultipartKit's callbacks report, one part at a time, hashing content as it
/// arrives.
///
/// Used by one request's task only, from MultipartKit's synchronous callbacks: not `Sendable`.
final class MultipartCollector {
    /// One finished part.
    struct Part {
        var headers: [(name: String, value: String)] = []
        var length = 0
        var hasher = SHA256()
        var sha256 = ""
        /// The content while it is short enough to report as `value`.
        var bytes: [UInt8]? = []

        /// The part's entry in the answer.
        var json: JSONValue {
            let disposition = header("Content-Disposition") ?? ""
            let name = MultipartHeader.parameter("name", in: disposition)
            let filename = MultipartHeader.parameter("filename", in: disposition)
            let value = filename == nil ? bytes.flatMap { String(validating: $0, as: UTF8.self) } : nil
            return .object([
                "name": .string(orNull: name),
                "filename": .string(orNull: filename),
                "contentType": .string(orNull: header("Content-Type")),
                "length": .int(length),
                "sha256": .string(sha256),
                "value": .string(orNull: value),
            ])
        }

        /// The part's `name` parameter of `Content-Disposition`, as sent.
        var name: String? {
            MultipartHeader.parameter("name", in: header("Content-Disposition") ?? "")
        }

        /// The part's content as text: UTF-8 of at most 64 KiB, else `nil`.
        var text: String? {
            bytes.flatMap { String(validating: $0, as: UTF8.self) }
        }

        /// The value of the part's header `name` (any case), or `nil`.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private(set) var parts: [Part] = []
    private var current: Part?
    private let valueLimit: Int

    /// Whether a part has started (a header or content arrived) and not yet ended.
    var isInPart: Bool { current != nil }

    init(valueLimit: Int) {
        self.valueLimit = valueLimit
    }

    func header(name: String, value: String) {
        var part = current ?? Part()
        part.headers.append((name, value))
        current = part
    }

    func body(_ buffer: ByteBuffer) {
        var part = current ?? Part()
        current = nil  // Keeps `part` uniquely referenced while it is mutated.
        buffer.withUnsafeReadableBytes { part.hasher.update($0) }
        part.length += buffer.readableBytes
        if part.length <= valueLimit {
            part.bytes?.append(contentsOf: buffer.readableBytesView)
        } else {
            part.bytes = nil
        }
        current = part
    }

    func completePart() {
        var part = current ?? Part()
        current = nil
        part.sha256 = part.hasher.finalizeHex()
        parts.append(part)
    }
}

/// Reads parameters of header values such as `Content-Type` and `Content-Disposition`.
enum MultipartHeader {
    /// The value of parameter `name` in `header` (`type; a=1; b="x; y"`), unquoted; `nil` when
    /// absent.
    ///
    /// A quoted value runs to the next `"`: the HTML standard escapes `"` as `%22` and browsers
    /// send backslashes as they are, so a backslash is not an escape here. The header is read as
    /// bytes, so a value starting with a combining mark cannot hide its opening quote.
    static func parameter(_ name: String, in header: String) -> String? {
        let bytes = Array(header.utf8)
        let wanted = Array(name.lowercased().utf8)
        let quote = UInt8(ascii: "\"")
        let semicolon = UInt8(ascii: ";")
        let equals = UInt8(ascii: "=")
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        // Skip the type (or disposition) before the first `;`.
        guard var index = bytes.firstIndex(of: semicolon).map({ $0 + 1 }) else { return nil }
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard let equalsIndex = bytes[index...].firstIndex(of: equals) else { return nil }
            let key = Array(bytes[index..<equalsIndex].filter { !isSpace($0) }).map { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            }
            index = equalsIndex + 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            let value: ArraySlice<UInt8>
            if index < bytes.count, bytes[index] == quote {
                guard let close = bytes[(index + 1)...].firstIndex(of: quote) else { return nil }
                value = bytes[(index + 1)..<close]
                index = (bytes[close...].firstIndex(of: semicolon) ?? bytes.count - 1) + 1
            } else {
                let end = bytes[index...].firstIndex(of: semicolon) ?? bytes.count
                var trimmed = bytes[index..<end]
                while let last = trimmed.last, isSpace(last) { trimmed = trimmed.dropLast() }
                value = trimmed
                index = end + 1
            }
            if key == wanted { return String(decoding: value, as: UTF8.self) }
        }
        return nil
    }
}
