import Foundation
import HTTPTypes
import Testing

@testable import Transport

@Suite struct MultipartFormDataTests {
    @Test func writesTheExactWireFormatOfASmallForm() async throws {
        // Given a form with a fixed boundary: a text field, two data parts and a file
        let file = try TemporaryFile(contents: Data("col1,col2\n1,2\n".utf8), name: "table.csv")
        defer { file.remove() }
        var form = MultipartFormData(boundaryGenerator: { "BOUNDARY" })
        try form.addField(name: "title", value: "Hello\r\nworld")
        try form.addData(Data("{}".utf8), name: "meta", filename: "meta.json")
        try form.addData(Data([0, 1, 2]), name: "raw")
        try form.addFile(path: file.path, name: "table")

        // When the body is produced
        let bytes = try await Self.bytes(of: form.makeBody())

        // Then it is RFC 7578 to the byte
        let expected =
            "--BOUNDARY\r\n"
            + "Content-Disposition: form-data; name=\"title\"\r\n"
            + "\r\n"
            + "Hello\r\nworld\r\n"
            + "--BOUNDARY\r\n"
            + "Content-Disposition: form-data; name=\"meta\"; filename=\"meta.json\"\r\n"
            + "Content-Type: application/json\r\n"
            + "\r\n"
            + "{}\r\n"
            + "--BOUNDARY\r\n"
            + "Content-Disposition: form-data; name=\"raw\"\r\n"
            + "Content-Type: application/octet-stream\r\n"
            + "\r\n"
            + "\u{0}\u{1}\u{2}\r\n"
            + "--BOUNDARY\r\n"
            + "Content-Disposition: form-data; name=\"table\"; filename=\"table.csv\"\r\n"
            + "Content-Type: text/csv\r\n"
            + "\r\n"
            + "col1,col2\n1,2\n\r\n"
            + "--BOUNDARY--\r\n"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(form.contentType == "multipart/form-data; boundary=BOUNDARY")
    }

    @Test func anEmptyFormIsOnlyTheClosingDelimiter() async throws {
        let form = MultipartFormData(boundaryGenerator: { "B" })
        let body = try form.makeBody()
        #expect(try await Self.bytes(of: body) == Data("--B--\r\n".utf8))
        #expect(body.length == 7)
    }

    @Test func theLengthIsExactlyTheNumberOfBytesProduced() async throws {
        // Given text, a data part larger than a read, and files of several sizes
        let small = try TemporaryFile(contents: Data("x".utf8), name: "one.txt")
        let empty = try TemporaryFile(contents: Data(), name: "empty.bin")
        let large = try TemporaryFile(contents: Self.pattern(count: 200_000), name: "large.bin")
        defer {
            for file in [small, empty, large] { file.remove() }
        }
        var form = MultipartFormData()
        try form.addField(name: "név", value: "Ünïcödé ✓")
        try form.addData(Self.pattern(count: 100_000), name: "blob", filename: "blob.bin")
        for file in [small, empty, large] { try form.addFile(path: file.path, name: "file") }

        // When the body is made and produced
        let body = try form.makeBody()
        let bytes = try await Self.bytes(of: body)

        // Then its declared length is what it sends, and it is replayable
        #expect(body.length == Int64(bytes.count))
        #expect(body.isReplayable)
        #expect(bytes.count > 300_000)
    }

    @Test func replayingTheBodyProducesIdenticalBytes() async throws {
        let file = try TemporaryFile(contents: Self.pattern(count: 150_000), name: "photo.jpg")
        defer { file.remove() }
        var form = MultipartFormData()
        try form.addField(name: "caption", value: "Toronto")
        try form.addFile(path: file.path, name: "photo")
        let body = try form.makeBody()

        let first = try await Self.bytes(of: body)
        let second = try await Self.bytes(of: body)

        #expect(first == second)
        #expect(Int64(first.count) == body.length)
    }

    @Test func encodesNonASCIIQuotesAndLineBreaksInNamesAsRFC7578Says() async throws {
        // Given names with UTF-8, a quote, CR and LF
        var form = MultipartFormData(boundaryGenerator: { "B" })
        try form.addField(name: "prénom \"名前\"\r\n", value: "Zoë")
        try form.addData(Data("a".utf8), name: "file", filename: "résumé \"final\"\n.txt")

        // When the body is produced
        let text = String(decoding: try await Self.bytes(of: form.makeBody()), as: UTF8.self)

        // Then the names are UTF-8 in the quoted string, with only `"`, CR and LF escaped
        #expect(text.contains("Content-Disposition: form-data; name=\"prénom %22名前%22%0D%0A\"\r\n\r\nZoë\r\n"))
        #expect(text.contains("name=\"file\"; filename=\"résumé %22final%22%0A.txt\"\r\nContent-Type: text/plain\r\n"))
        #expect(!text.contains("filename*"))
    }

    @Test(arguments: [
        ("notes.txt", "text/plain"), ("index.html", "text/html"), ("site.css", "text/css"),
        ("app.js", "text/javascript"), ("data.json", "application/json"), ("feed.xml", "application/xml"),
        ("table.csv", "text/csv"), ("paper.pdf", "application/pdf"), ("bundle.zip", "application/zip"),
        ("log.gz", "application/gzip"), ("backup.tar", "application/x-tar"), ("icon.png", "image/png"),
        ("photo.jpg", "image/jpeg"), ("PHOTO.JPEG", "image/jpeg"), ("anim.gif", "image/gif"),
        ("pic.webp", "image/webp"), ("logo.svg", "image/svg+xml"), ("song.mp3", "audio/mpeg"),
        ("clip.mp4", "video/mp4"), ("sound.wav", "audio/wav"), ("movie.mov", "video/quicktime"),
        ("letter.doc", "application/msword"),
        ("letter.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("sheet.xls", "application/vnd.ms-excel"),
        ("sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("deck.ppt", "application/vnd.ms-powerpoint"),
        ("deck.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
        ("README.md", "text/markdown"), ("firmware.bin", "application/octet-stream"),
        ("archive.unknown", "application/octet-stream"), ("Makefile", "application/octet-stream"),
        (".bashrc", "application/octet-stream"), ("/tmp/dir.d/noext", "application/octet-stream"),
    ])
    func derivesTheContentTypeFromTheFileExtension(filename: String, contentType: String) async throws {
        var form = MultipartFormData(boundaryGenerator: { "B" })
        try form.addData(Data("x".utf8), name: "f", filename: filename)
        let text = String(decoding: try await Self.bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text.contains("\r\nContent-Type: \(contentType)\r\n"))
    }

    @Test func aFilePartDefaultsItsFilenameAndTypeFromThePathAndKeepsExplicitOnes() async throws {
        let file = try TemporaryFile(contents: Data("%PDF".utf8), name: "Report 2024.pdf")
        defer { file.remove() }
        var form = MultipartFormData(boundaryGenerator: { "B" })
        try form.addFile(path: file.path, name: "derived")
        try form.addFile(path: file.path, name: "explicit", filename: "r.bin", contentType: "application/x-report")

        let text = String(decoding: try await Self.bytes(of: form.makeBody()), as: UTF8.self)

        #expect(text.contains("name=\"derived\"; filename=\"Report 2024.pdf\"\r\nContent-Type: application/pdf\r\n"))
        #expect(text.contains("name=\"explicit\"; filename=\"r.bin\"\r\nContent-Type: application/x-report\r\n"))
    }

    @Test func drawsANewBoundaryWhenAnAddedPartContainsIt() async throws {
        // Given a generator whose first two boundaries occur in the content
        let drawn = PThreadMutex(0)
        let boundaries = ["first-boundary", "second-boundary", "third-boundary"]
        var form = MultipartFormData(boundaryGenerator: {
            drawn.withLock { count in
                defer { count += 1 }
                return boundaries[min(count, boundaries.count - 1)]
            }
        })
        #expect(form.boundary == "first-boundary")

        // When a field value contains the first and a file name the second
        try form.addField(name: "text", value: "quoting --first-boundary here")
        #expect(form.boundary == "second-boundary")
        try form.addData(Data(), name: "data", filename: "second-boundary.txt")

        // Then the boundary is one no part contains, and the body uses it throughout
        #expect(form.boundary == "third-boundary")
        #expect(form.contentType == "multipart/form-data; boundary=third-boundary")
        let text = String(decoding: try await Self.bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text.hasPrefix("--third-boundary\r\n"))
        #expect(text.hasSuffix("\r\n--third-boundary--\r\n"))
        #expect(text.components(separatedBy: "--third-boundary").count == 4)
    }

    @Test func aRandomBoundaryIsParleyAndThirtyTwoLettersOrDigits() {
        let boundaries = (0..<50).map { _ in MultipartFormData().boundary }
        for boundary in boundaries {
            #expect(boundary.hasPrefix("parley-"))
            #expect(boundary.count == 39)
            #expect(boundary.dropFirst(7).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
        #expect(Set(boundaries).count == boundaries.count)
    }

    @Test(arguments: [0, 65_536 - 7, 65_536 - 1, 65_536, 100_000])
    func aFileContainingTheBoundaryFailsWhileStreaming(offset: Int) async throws {
        // Given a file with the boundary at `offset`, across the edge of two reads for some offsets
        let boundary = "boundary-in-file"
        var contents = Self.pattern(count: 140_000)
        contents.replaceSubrange(offset..<(offset + boundary.utf8.count), with: Data(boundary.utf8))
        let file = try TemporaryFile(contents: contents, name: "trap.bin")
        defer { file.remove() }
        var form = MultipartFormData(boundaryGenerator: { boundary })
        try form.addFile(path: file.path, name: "trap")

        // When the body streams, then it fails naming the file
        let body = try form.makeBody()
        let error = await #expect(throws: TransportError.self) { _ = try await Self.bytes(of: body) }
        #expect(error?.category == .invalidBody)
        #expect(error?.message.contains(file.path) == true)
        #expect(error?.message.contains("boundary") == true)
    }

    @Test func aMissingFileFailsWhenTheBodyIsMadeNamingThePath() throws {
        var form = MultipartFormData()
        try form.addFile(path: "/nonexistent/parley/photo.jpg", name: "photo")
        let error = #expect(throws: TransportError.self) { try form.makeBody() }
        #expect(error?.category == .invalidBody)
        #expect(error?.mayHaveReachedServer == false)
        #expect(error?.message.contains("/nonexistent/parley/photo.jpg") == true)
        #expect(error?.message.contains("does not exist") == true)
    }

    @Test func aDirectoryIsNotAFilePart() throws {
        var form = MultipartFormData()
        try form.addFile(path: FileManager.default.temporaryDirectory.path, name: "dir")
        let error = #expect(throws: TransportError.self) { try form.makeBody() }
        #expect(error?.category == .invalidBody)
        #expect(error?.message.contains("not a regular file") == true)
    }

    @Test func aFileThatShrinksAfterTheBodyIsMadeFailsTheStream() async throws {
        let file = try TemporaryFile(contents: Self.pattern(count: 10_000), name: "shrinks.bin")
        defer { file.remove() }
        var form = MultipartFormData()
        try form.addFile(path: file.path, name: "file")
        let body = try form.makeBody()
        try Data("short".utf8).write(to: URL(fileURLWithPath: file.path))

        let error = await #expect(throws: TransportError.self) { _ = try await Self.bytes(of: body) }
        #expect(error?.category == .invalidBody)
        #expect(error?.message.contains("truncated") == true)
    }

    @Test func anEmptyFieldNameIsRejected() {
        var form = MultipartFormData()
        let error = #expect(throws: TransportError.self) { try form.addField(name: "", value: "v") }
        #expect(error?.category == .invalidBody)
        #expect(error?.message.contains("empty field name") == true)
        #expect(throws: TransportError.self) { try form.addFile(path: "/tmp/x", name: "") }
    }

    @Test(arguments: ["text/plain\r\nX-Injected: 1", "", "a\u{0}b"])
    func aContentTypeWithControlCharactersIsRejected(contentType: String) {
        var form = MultipartFormData()
        let error = #expect(throws: TransportError.self) {
            try form.addData(Data(), name: "f", contentType: contentType)
        }
        #expect(error?.category == .invalidHeader)
    }

    @Test func aRequestWithAFormCarriesTheBodyAndItsContentType() throws {
        var form = MultipartFormData()
        try form.addField(name: "a", value: "1")
        let request = try TransportRequest(
            method: .post, url: "https://api.example.com/forms", headers: ["Content-Type": "text/plain"],
            multipart: form)
        #expect(request.head.headerFields[values: .contentType] == [form.contentType])
        #expect(request.body?.length == (try form.makeBody()).length)

        var other = try TransportRequest(method: .put, url: "https://api.example.com/forms")
        try other.setMultipartBody(form)
        #expect(other.head.headerFields[.contentType] == form.contentType)
        #expect(other.body?.isReplayable == true)
    }

    // MARK: - Helpers

    /// Every byte a body produces, in order.
    static func bytes(of body: RequestBody) async throws -> Data {
        guard case .stream(let stream) = body.content else {
            Issue.record("a multipart body is a stream")
            return Data()
        }
        let collected = PThreadMutex(Data())
        try await stream.pump { chunk in collected.withLock { $0.append(chunk) } }
        return collected.withLock { $0 }
    }

    /// `count` bytes of a repeating pattern that never spells a boundary.
    static func pattern(count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 251) })
    }
}

/// A file in a fresh temporary directory, removed by ``remove()``.
struct TemporaryFile {
    let directory: URL
    let path: String

    init(contents: Data, name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-multipart-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        path = url.path
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
