import Downloads
import HTTPTypes
import Testing
import Transport

@Suite struct ResumePointTests {
    static let tag = DownloadValidator.entityTag("\"v1\"")

    @Test func asksForTheWholeFileWithoutBytesOrWithoutAValidator() {
        for point in [
            ResumePoint(offset: 0, validator: Self.tag, expectedLength: 1000),
            ResumePoint(offset: 500, validator: nil, expectedLength: 1000),
        ] {
            #expect(!point.isResuming)
            #expect(point.rangeHeaderValue == nil)
            #expect(point.ifRangeHeaderValue == nil)
        }
    }

    @Test func asksForTheRestWithTheValidatorInIfRange() {
        let point = ResumePoint(offset: 500, validator: Self.tag, expectedLength: 1000)
        #expect(point.rangeHeaderValue == "bytes=500-")
        #expect(point.ifRangeHeaderValue == "\"v1\"")
    }

    /// One row of the decision table for a resumed request of bytes 500- of 1000.
    struct Row: Sendable, CustomTestStringConvertible {
        let status: Int
        let fields: [HTTPField.Name: String]
        let offset: Int64
        let expected: ResumeDecision
        let testDescription: String

        init(
            _ name: String, _ status: Int, _ fields: [HTTPField.Name: String] = [:], offset: Int64 = 500,
            _ expected: ResumeDecision
        ) {
            self.status = status
            self.fields = fields
            self.offset = offset
            self.expected = expected
            testDescription = name
        }
    }

    static let rows: [Row] = [
        Row(
            "a matching 206 appends", 206, [.contentRange: "bytes 500-999/1000", .eTag: "\"v1\""],
            .append(total: 1000)),
        Row("a 206 without a validator appends", 206, [.contentRange: "bytes 500-999/1000"], .append(total: 1000)),
        Row(
            "a 206 of unknown length keeps the known one", 206, [.contentRange: "bytes 500-999/*"], .append(total: 1000)
        ),
        Row(
            "a 206 from elsewhere is discarded", 206, [.contentRange: "bytes 0-999/1000"],
            .discardAndRefetch(reason: "the server sent bytes from 0 when asked for bytes from 500")),
        Row(
            "a 206 of another length is discarded", 206, [.contentRange: "bytes 500-1999/2000"],
            .discardAndRefetch(reason: "the file is now 2000 bytes long instead of 1000 under the same validator")),
        Row(
            "a 206 of another version is discarded", 206, [.contentRange: "bytes 500-999/1000", .eTag: "\"v2\""],
            .discardAndRefetch(reason: "the server answered If-Range \"v1\" with part of another version")),
        Row(
            "a multipart 206 is discarded", 206, [.contentType: "multipart/byteranges; boundary=x"],
            .discardAndRefetch(reason: "the server answered a single range without a usable Content-Range")),
        Row(
            "a 200 replaces with the new version", 200, [.eTag: "\"v2\"", .contentLength: "2000"],
            .replace(validator: .entityTag("\"v2\""), total: 2000)),
        Row(
            "a 200 with a weak tag replaces without a validator", 200, [.eTag: "W/\"v2\""],
            .replace(validator: nil, total: nil)),
        Row(
            "a 416 for a complete partial is success", 416, [.contentRange: "bytes */1000"], offset: 1000,
            .alreadyComplete),
        Row("a 416 without Content-Range for a complete partial is success", 416, offset: 1000, .alreadyComplete),
        Row(
            "a 416 for an incomplete partial is discarded", 416, [.contentRange: "bytes */1000"],
            .discardAndRefetch(reason: "the server refused the range of the 500 bytes already on disk")),
        Row(
            "a 416 saying the file changed length is discarded", 416, [.contentRange: "bytes */2000"], offset: 1000,
            .discardAndRefetch(reason: "the file is now 2000 bytes long instead of 1000 under the same validator")),
        Row("a 404 is an unexpected status", 404, [:], .unexpectedStatus(404)),
        Row("a 503 is an unexpected status", 503, [:], .unexpectedStatus(503)),
    ]

    @Test(arguments: rows)
    func decidesWhatToDoWithTheAnswerToARangedRequest(row: Row) {
        let point = ResumePoint(offset: row.offset, validator: Self.tag, expectedLength: 1000)
        #expect(point.decision(for: head(row.status, row.fields)) == row.expected)
    }

    @Test func aRequestForTheWholeFileAcceptsOnly200() {
        let point = ResumePoint(offset: 500, validator: nil, expectedLength: 1000)
        #expect(point.decision(for: head(200, [.contentLength: "1000"])) == .replace(validator: nil, total: 1000))
        #expect(point.decision(for: head(206, [.contentRange: "bytes 500-999/1000"])) == .unexpectedStatus(206))
        #expect(point.decision(for: head(416)) == .unexpectedStatus(416))
    }
}
