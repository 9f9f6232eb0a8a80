import HTTPTypes
import Testing
import Transport

@testable import TransportCurl

/// The response-head parser fed line by line, as libcurl's header callback feeds it, without
/// a server.
///
/// Checked to fail without each rule: with an interim `1xx` head taken for a final one,
/// `skipsInterimHeadsAndKeepsTheFinalOne` sees a head complete at the `100`; with trailers
/// consumed as fields, `ignoresTrailersAfterTheHead` finds the trailer among the fields.
@Suite struct ResponseHeadParserTests {
    /// Feeds `lines` (each given without its CRLF) and returns the event of each.
    private static func feed(
        _ lines: [String], to parser: inout ResponseHeadParser, limit: Int = 1 << 20
    ) -> [ResponseHeadParser.Event] {
        lines.map { line in
            Array((line + "\r\n").utf8).withUnsafeBytes { parser.consume($0, limit: limit) }
        }
    }

    @Test func readsTheStatusAndTheFieldsTheEngineActsOn() throws {
        var parser = ResponseHeadParser()
        let events = Self.feed(
            [
                "HTTP/1.1 301 Moved Permanently", "content-LENGTH: 42", "Content-Encoding: gzip",
                "Location:  /next ", "X-Other: a value", "",
            ], to: &parser)
        #expect(events == [.continue, .continue, .continue, .continue, .continue, .headComplete])
        #expect(parser.isComplete)
        #expect(parser.status == 301)
        #expect(parser.reason == "Moved Permanently")
        #expect(parser.contentLength == 42)
        #expect(parser.hasContentEncoding)
        #expect(parser.location == "/next")
        let head = parser.makeHead()
        #expect(head.status == .movedPermanently)
        #expect(head.headerFields[.contentLength] == "42")
        #expect(head.headerFields[try #require(HTTPField.Name("X-Other"))] == "a value")
        #expect(head.headerFields.count == 4)
    }

    /// The signature of the names the parser computes in C as the lines arrive is the one
    /// Swift computes from the same lines, in any letter case and across an interim head, so
    /// that a reader that trusts it never misses a field that is there.
    ///
    /// Checked to fail: with the C bit made from the first byte without bit 5 set, the
    /// upper-case names give other bits; with the signature left over from the interim head,
    /// `Link` (only in the `103`) counts in the final one.
    @Test func signsTheNamesItReceivesAsSwiftDoes() {
        var parser = ResponseHeadParser()
        let lines = [
            "Server: nginx", "CACHE-CONTROL: max-age=60", "\tpublic", "etag: \"x\"", "X-Parley-Cache: miss",
            "Vary: Accept", "content-length: 0", "B: c", "~!#$%&'*+-.^_`|9: token bytes",
        ]
        _ = Self.feed(["HTTP/1.1 103 Early Hints", "Link: </a>; rel=preload", "", "HTTP/1.1 200 OK"], to: &parser)
        #expect(Self.feed(lines + [""], to: &parser).last == .headComplete)
        let received = parser.receivedHead()
        let inSwift = ReceivedResponseHead(
            status: 200, reason: "OK", lines: Array(lines.map { $0 + "\n" }.joined().utf8))
        #expect(received.nameSignature == inSwift.nameSignature)
        #expect(received.nameSignature != 0)
        for name: HTTPField.Name in [.server, .cacheControl, .eTag, .vary, .contentLength] {
            #expect(FieldNameSet([name]).mayOccur(in: received.nameSignature))
        }
    }

    /// The reason phrase's buffer starts at 32 bytes and grows: a phrase of 100 bytes is kept
    /// whole, and the next head on the same parser has its own short one.
    ///
    /// Checked to fail: with the buffer's growth capped at its first 32 bytes (an append that
    /// needs more reported as out of memory), the long phrase's head was refused.
    @Test func keepsAReasonPhraseLongerThanItsFirstBuffer() {
        var parser = ResponseHeadParser()
        let long = Array(repeating: "Unusually Long Reason", count: 5).joined(separator: " ")
        #expect(Self.feed(["HTTP/1.1 299 \(long)", ""], to: &parser) == [.continue, .headComplete])
        #expect(parser.reason == long)
        parser.restart()
        #expect(Self.feed(["HTTP/1.1 200 OK", ""], to: &parser) == [.continue, .headComplete])
        #expect(parser.reason == "OK")
    }

    @Test func readsAnHTTP2StatusLineWithoutAReason() {
        var parser = ResponseHeadParser()
        #expect(Self.feed(["HTTP/2 204", ""], to: &parser) == [.continue, .headComplete])
        #expect(parser.status == 204)
        #expect(parser.reason.isEmpty)
        #expect(parser.contentLength == nil)
        #expect(!parser.hasContentEncoding)
        #expect(parser.location == nil)
    }

    /// Found by the `response-head` fuzz target: `Content-Length: -5` was read as -5 (Swift's
    /// `Int64(_:)` takes a sign), a negative length for the engine's early body-limit check.
    @Test(arguments: ["-5", "+5", "0x10", "1e3", "5 5", "99999999999999999999"])
    func leavesTheContentLengthUnsetWhenItIsNotDigitsOnly(value: String) {
        var parser = ResponseHeadParser()
        let events = Self.feed(["HTTP/1.1 200 OK", "Content-Length: \(value)", ""], to: &parser)
        #expect(events == [.continue, .continue, .headComplete])
        #expect(parser.contentLength == nil)
    }

    @Test func skipsInterimHeadsAndKeepsTheFinalOne() throws {
        var parser = ResponseHeadParser()
        let events = Self.feed(
            [
                "HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </style.css>", "",
                "HTTP/1.1 200 OK", "Content-Length: 2", "",
            ], to: &parser)
        #expect(
            events == [
                .continue, .interimComplete, .continue, .continue, .interimComplete, .continue, .continue,
                .headComplete,
            ])
        #expect(parser.status == 200)
        let head = parser.makeHead()
        #expect(head.headerFields[try #require(HTTPField.Name("Link"))] == nil)
        #expect(head.headerFields[.contentLength] == "2")
    }

    @Test func reportsEachInterimHeadWithItsFieldsBeforeTheFinalOne() throws {
        // Given a 104 with the upload's Location, then the final head
        var parser = ResponseHeadParser()
        let interim = Self.feed(
            [
                "HTTP/1.1 104 Upload Resumption Supported", "Location: /uploads/7", "Upload-Draft-Interop-Version: 6",
                "",
            ], to: &parser)

        // Then the interim head is complete and readable until the next line
        #expect(interim.last == .interimComplete)
        let head = parser.makeHead()
        #expect(head.status.code == 104)
        #expect(head.headerFields[.location] == "/uploads/7")

        // And the final head starts afresh, without the interim fields
        #expect(Self.feed(["HTTP/1.1 201 Created", "Upload-Complete: ?1", ""], to: &parser).last == .headComplete)
        let final = parser.makeHead()
        #expect(final.status.code == 201)
        #expect(final.headerFields[.location] == nil)
        #expect(parser.location == nil)
    }

    @Test func ignoresTrailersAfterTheHead() throws {
        var parser = ResponseHeadParser()
        _ = Self.feed(["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", ""], to: &parser)
        #expect(Self.feed(["X-Checksum: abc", ""], to: &parser) == [.continue, .continue])
        let head = parser.makeHead()
        #expect(head.headerFields[try #require(HTTPField.Name("X-Checksum"))] == nil)
    }

    @Test func countsEveryHeadAgainstTheLimit() {
        var parser = ResponseHeadParser()
        // The interim head (20 + 2 bytes) and the final status line (17) stay within 40; the field passes it.
        let events = Self.feed(["HTTP/1.1 100 Go on", "", "HTTP/1.1 200 OK", "X: y"], to: &parser, limit: 40)
        #expect(events == [.continue, .interimComplete, .continue, .tooLarge])
    }

    @Test(arguments: [
        ([""], "a blank line before any status line"),
        (["HTTP/1.1 200 OK", " folded"], "a continuation line before any header field"),
        (["HTTP/1.1 200 OK", "no colon here"], "a header line without a field name and colon"),
        (["HTTP/1.1 200 OK", ": empty name"], "a header line without a field name and colon"),
    ])
    func refusesMalformedLines(lines: [String], problem: String) {
        var parser = ResponseHeadParser()
        #expect(Self.feed(lines, to: &parser).last == .invalid(problem))
    }

    @Test(arguments: ["HTTP/1.1 2000 OK", "HTTP/1.1 099 Low", "HTTP/1.1 600 High", "HTTP/1.1 abc", "HTTP/1.1"])
    func refusesAMalformedStatusLine(line: String) {
        var parser = ResponseHeadParser()
        guard case .invalid(let problem) = Self.feed([line], to: &parser).last else {
            Issue.record("\(line) was accepted")
            return
        }
        #expect(problem.contains("status line"))
    }

    @Test func joinsAFoldedLineToTheFieldBeforeIt() throws {
        var parser = ResponseHeadParser()
        _ = Self.feed(["HTTP/1.1 200 OK", "X-Long: first", "\tsecond", ""], to: &parser)
        let head = parser.makeHead()
        #expect(head.headerFields[try #require(HTTPField.Name("X-Long"))] == "first second")
    }

    @Test(arguments: ["Bad Name: x", "X(y): z", "Ünicode: v"])
    func refusesAFieldNameThatIsNotAToken(line: String) {
        var parser = ResponseHeadParser()
        let events = Self.feed(["HTTP/1.1 200 OK", line, ""], to: &parser)
        guard case .invalid(let problem) = events[1] else {
            Issue.record("\(line) gave \(events)")
            return
        }
        #expect(problem.contains("is not a valid token"))
    }

    /// The head a response carries keeps the lines as received: reading the status builds
    /// nothing, reading the head builds it once, with the fields in their order.
    @Test func buildsTheHeadWhenItIsRead() {
        var parser = ResponseHeadParser()
        _ = Self.feed(
            ["HTTP/1.1 404 Not Found", "Server: x", "X-Custom:  a b ", "x-other: y", ""], to: &parser)
        let received = parser.receivedHead()
        #expect(received.status == .notFound)
        #expect(received.status.reasonPhrase == "Not Found")
        let head = received.response
        #expect(head.status == .notFound)
        #expect(head.headerFields.map(\.name.rawName) == ["Server", "X-Custom", "x-other"])
        #expect(head.headerFields.map(\.value) == ["x", "a b", "y"])
        #expect(received.response == head)
    }
}
