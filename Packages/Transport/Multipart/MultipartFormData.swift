public import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data and files, sent as a
/// replayable stream with a known length.
///
/// Add the parts in the order the server expects them, then give the form to a request, which
/// sets both the body and its `Content-Type`:
///
/// ```swift
/// var form = MultipartFormData()
/// try form.addField(name: "title", value: "Vacances à Montréal")
/// try form.addData(thumbnail, name: "thumbnail", filename: "thumb.png")  // image/png
/// try form.addFile(path: "/tmp/IMG_0042.jpg", name: "photo")            // "IMG_0042.jpg", image/jpeg
/// let request = try TransportRequest(
///     method: .post, url: "https://api.example.com/albums/7", multipart: form)
/// ```
///
/// ## Streaming
///
/// ``makeBody()`` does not assemble the body in memory. It returns a
/// ``RequestBody/stream(length:_:)`` whose factory yields, in order, each part's delimiter and
/// headers, its content (a file in reads of 64 KiB, never loaded whole), and the closing
/// delimiter. The factory runs again for every attempt, so a `307`/`308` redirect or a retry
/// sends the same bytes again. Files are measured when ``makeBody()`` is called, so the body's
/// length is known and it is sent with `Content-Length`.
///
/// ## The boundary
///
/// The boundary is `parley-` and 32 random letters and digits from
/// `SystemRandomNumberGenerator` (about 190 bits), and it must not occur in any part:
///
/// - Text fields, data parts and every part's headers are searched as they are added; if one
///   holds the boundary a new one is drawn. So the boundary can change while parts are added:
///   read ``contentType`` after adding the last part, or use
///   ``TransportRequest/setMultipartBody(_:)``, which reads both together.
/// - Files are searched while they stream, across the edges of the reads. A file that holds
///   the boundary fails the transfer with ``ErrorCategory/invalidBody``
///   instead of sending a body the server would split in the wrong place. With a random
///   boundary that takes a file written with this very boundary in it: in practice, never.
///
/// ## Names
///
/// Field names and file names are sent as UTF-8 inside the quoted strings of
/// `Content-Disposition`, as RFC 7578 §4.2 and the HTML standard's form encoding do, with `"`
/// written `%22`, CR `%0D` and LF `%0A`. There is no RFC 2231 `filename*=` parameter: servers
/// that follow the HTML standard do not read it. Values are sent byte for byte.
///
/// The form is a value: copies are independent, and adding parts never touches the file
/// system. It is `Sendable`.
public struct MultipartFormData: Sendable {
    /// The boundary that separates the parts: `parley-` and 32 random letters and digits.
    ///
    /// It may change when an added text field or data part contains it; see "The boundary" above.
    public private(set) var boundary: String

    /// The `Content-Type` header value for the body: `multipart/form-data; boundary=…`.
    ///
    /// Read it after adding the last part: adding a part that contains the current boundary
    /// draws a new one.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The parts, in order.
    private(set) var parts: [Part] = []

    /// Draws a boundary; random except in tests.
    private let makeBoundary: @Sendable () -> String

    /// How many boundaries are drawn before a form whose parts contain every one of them is
    /// given up on (only a deterministic generator can get there).
    private static let boundaryAttempts = 16

    /// Files are read this much at a time: 64 KiB.
    static let fileChunkSize = 64 * 1024

    /// Creates an empty form with a random boundary.
    public init() {
        self.init(boundaryGenerator: MultipartFormData.randomBoundary)
    }

    /// Creates an empty form whose boundaries come from `boundaryGenerator` (tests only).
    ///
    /// - Parameter boundaryGenerator: Returns a boundary each time it is called: 1 to 70
    ///   letters, digits and `'()+_,-./:=?` (RFC 2046 §5.1.1).
    init(boundaryGenerator: @escaping @Sendable () -> String) {
        self.makeBoundary = boundaryGenerator
        self.boundary = boundaryGenerator()
    }

    // MARK: - Adding parts

    /// Adds a text field: `Content-Disposition: form-data; name="…"` and the value's UTF-8.
    ///
    /// A text field has no `filename` and no `Content-Type`, as a browser sends it; servers
    /// read it as text.
    ///
    /// - Parameters:
    ///   - name: The field's name; any text but the empty string.
    ///   - value: The field's value, sent as UTF-8 byte for byte (line endings are kept).
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidBody``
    ///   when `name` is empty.
    public mutating func addField(name: String, value: String) throws {
        try add(Part(name: name, filename: nil, contentType: nil, content: .bytes(Data(value.utf8))))
    }

    /// Adds a part whose content is in memory, such as an image just rendered.
    ///
    /// - Parameters:
    ///   - data: The part's content.
    ///   - name: The field's name; any text but the empty string.
    ///   - filename: The file name the server sees, `nil` (the default) for none.
    ///   - contentType: The part's media type. `nil` (the default) derives it from the
    ///     extension of `filename` (`report.pdf` is `application/pdf`), and falls back to
    ///     `application/octet-stream` when there is no file name or the extension is unknown.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidBody``
    ///   when `name` is empty, and ``ErrorCategory/invalidHeader`` when
    ///   `contentType` is empty or contains a control character (CR, LF and NUL among them).
    public mutating func addData(
        _ data: Data,
        name: String,
        filename: String? = nil,
        contentType: String? = nil
    ) throws {
        let type = contentType ?? filename.map(MIMEType.forPath) ?? MIMEType.fallback
        try add(Part(name: name, filename: filename, contentType: type, content: .bytes(data)))
    }

    /// Adds a file, read in chunks while the body is sent and never loaded whole.
    ///
    /// The file is not touched here: ``makeBody()`` measures it, and each attempt to send the
    /// body reads it again.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - name: The field's name; any text but the empty string.
    ///   - filename: The file name the server sees; `nil` (the default) uses the last
    ///     component of `path`.
    ///   - contentType: The part's media type; `nil` (the default) derives it from the
    ///     extension of `path` (`photo.jpg` is `image/jpeg`), falling back to
    ///     `application/octet-stream`.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidBody``
    ///   when `name` is empty, and ``ErrorCategory/invalidHeader`` when
    ///   `contentType` is empty or contains a control character.
    public mutating func addFile(
        path: String,
        name: String,
        filename: String? = nil,
        contentType: String? = nil
    ) throws {
        let shownName = filename ?? path.split(separator: "/").last.map(String.init) ?? path
        let type = contentType ?? MIMEType.forPath(path)
        try add(Part(name: name, filename: shownName, contentType: type, content: .file(path: path)))
    }

    // MARK: - The body

    /// The body as a replayable stream of known length.
    ///
    /// Each file is measured now; its size at this moment is what the body sends. A file that
    /// later shrinks fails the transfer; bytes a file gains later are not sent.
    ///
    /// - Returns: A ``RequestBody/stream(length:_:)`` body with ``RequestBody/length`` set.
    ///   Send it with ``contentType`` as the `Content-Type`.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidBody``
    ///   naming the path when a file is missing, unreadable or not a regular file.
    public func makeBody() throws -> RequestBody {
        let delimiter = Data(boundary.utf8)
        var segments: [MultipartBodyStream.Segment] = []
        var pending = Data()
        for (index, part) in parts.enumerated() {
            pending.append(part.head(boundary: boundary, isFirst: index == 0))
            switch part.content {
            case .bytes(let data) where data.count <= Self.fileChunkSize:
                pending.append(data)
            case .bytes(let data):
                segments.append(.bytes(pending))
                segments.append(.bytes(data))
                pending = Data()
            case .file(let path):
                let size = try Self.measureFile(at: path)
                segments.append(.bytes(pending))
                segments.append(.file(path: path, size: size))
                pending = Data()
            }
        }
        pending.append(Data(((parts.isEmpty ? "" : "\r\n") + "--\(boundary)--\r\n").utf8))
        segments.append(.bytes(pending))
        segments.removeAll { segment in
            if case .bytes(let data) = segment { data.isEmpty } else { false }
        }
        let length = segments.reduce(Int64(0)) { total, segment in
            switch segment {
            case .bytes(let data): total + Int64(data.count)
            case .file(_, let size): total + size
            }
        }
        return .stream(length: length) { [segments] in
            MultipartBodyStream(segments: segments, boundary: delimiter, chunkSize: Self.fileChunkSize)
        }
    }

    // MARK: - Helpers

    /// Validates and appends `part`, drawing a new boundary if the part contains the current one.
    private mutating func add(_ part: Part) throws {
        guard !part.name.isEmpty else {
            throw TransportError(
                .invalidBody,
                message: "A multipart/form-data part has an empty field name; every part needs a name "
                    + "(RFC 7578 §4.2).",
                mayHaveReachedServer: false)
        }
        if let type = part.contentType {
            if type.isEmpty || type.utf8.contains(where: RequestValidation.isForbiddenInFieldValue) {
                throw TransportError(
                    .invalidHeader,
                    message: "The Content-Type \(type.debugDescription) of multipart/form-data part \"\(part.name)\" "
                        + "is empty or contains a control character (CR, LF or NUL would inject part headers).",
                    mayHaveReachedServer: false)
            }
        }
        parts.append(part)
        if part.contains(boundary) {
            try drawBoundary()
        }
    }

    /// Replaces the boundary with one that no in-memory part or header contains.
    private mutating func drawBoundary() throws {
        for _ in 0..<Self.boundaryAttempts {
            let candidate = makeBoundary()
            if !parts.contains(where: { $0.contains(candidate) }) {
                boundary = candidate
                return
            }
        }
        throw TransportError(
            .invalidBody,
            message: "No multipart/form-data boundary absent from the form's parts was found in "
                + "\(Self.boundaryAttempts) attempts.",
            mayHaveReachedServer: false)
    }

    /// `parley-` and 32 letters and digits from the system's secure generator.
    @Sendable static func randomBoundary() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        var boundary = "parley-"
        for _ in 0..<32 {
            boundary.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return boundary
    }

    /// The size of the regular file at `path` (symbolic links followed).
    static func measureFile(at path: String) throws -> Int64 {
        let values: URLResourceValues
        do {
            values = try URL(fileURLWithPath: path).resolvingSymlinksInPath()
                .resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw fileError(path, reason)
        }
        guard values.isRegularFile == true, let size = values.fileSize else {
            throw fileError(path, "is not a regular file")
        }
        return Int64(size)
    }

    /// An `.invalidBody` error about the file of a file part.
    static func fileError(_ path: String, _ problem: String) -> TransportError {
        TransportError(
            .invalidBody, message: "The multipart/form-data file \(path) \(problem).", mayHaveReachedServer: false)
    }
}

extension MultipartFormData {
    /// One part of the form.
    struct Part: Sendable {
        /// Where a part's content comes from.
        enum Content: Sendable {
            /// Bytes in memory: a text field's value or a data part.
            case bytes(Data)
            /// A file, measured by ``MultipartFormData/makeBody()`` and read while sending.
            case file(path: String)
        }

        /// The field name, as given.
        let name: String
        /// The file name, as given; `nil` for a text field or a data part without one.
        let filename: String?
        /// The media type; `nil` for a text field.
        let contentType: String?
        /// The content.
        let content: Content

        /// The part's header lines, each ending in CRLF (without the delimiter line).
        var headerLines: String {
            var lines = "Content-Disposition: form-data; name=\"\(Self.escaped(name))\""
            if let filename { lines += "; filename=\"\(Self.escaped(filename))\"" }
            lines += "\r\n"
            if let contentType { lines += "Content-Type: \(contentType)\r\n" }
            return lines
        }

        /// The bytes before the content: the CRLF that ends the previous part (unless first),
        /// the delimiter line, the header lines and the empty line.
        func head(boundary: String, isFirst: Bool) -> Data {
            Data(((isFirst ? "" : "\r\n") + "--\(boundary)\r\n" + headerLines + "\r\n").utf8)
        }

        /// Whether the headers or the in-memory content contain `boundary`. File content is
        /// checked while it streams.
        func contains(_ boundary: String) -> Bool {
            let needle = Data(boundary.utf8)
            if Data(headerLines.utf8).range(of: needle) != nil { return true }
            if case .bytes(let data) = content { return data.range(of: needle) != nil }
            return false
        }

        /// A name for a quoted string, per RFC 7578 §4.2 and the HTML standard: UTF-8 as is,
        /// `"` as `%22`, CR as `%0D`, LF as `%0A`.
        static func escaped(_ name: String) -> String {
            var result = ""
            result.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
            for scalar in name.unicodeScalars {
                switch scalar {
                case "\"": result += "%22"
                case "\r": result += "%0D"
                case "\n": result += "%0A"
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result
        }
    }
}
