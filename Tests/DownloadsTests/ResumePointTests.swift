import Downloads
import HTTPTypes
import Testing
import Transport

/// A response head with `status` and `fields`, for the decision tables.
private func head(_ status: Int, _ fields: [HTTPField.Name: String] = [:]) -> HTTPResponse {
    var headerFields = HTTPFields()
    for (name, value) in fields.sorted(by: { $0.key.rawName < $1.key.rawName }) {
        headerFields.append(HTTPField(name: name, value: value))
    }
    return HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: headerFields)
}

@Suite struct DownloadValidatorTests {
    @Test func aStrongEntityTagIsTheValidator() {
        let validator = DownloadValidator(response: head(200, [.eTag: "\"v1\"", .lastModified: "x"]))
        #expect(validator == .entityTag("\"v1\""))
        #expect(validator?.ifRangeValue == "\"v1\"")
    }

    @Test func aWeakEntityTagMeansNoValidatorEvenWithAStrongLastModified() {
        let response = head(
            200,
            [
                .eTag: "W/\"v1\"", .lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                .date: "Tue, 02 Jan 2024 00:00:00 GMT",
            ])
        #expect(DownloadValidator(response: response) == nil)
    }

    @Test func lastModifiedIsTheValidatorWhenTheDateIsAtLeastASecondLater() {
        let response = head(
            200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", .date: "Mon, 01 Jan 2024 00:00:01 GMT"])
        #expect(DownloadValidator(response: response) == .lastModified("Mon, 01 Jan 2024 00:00:00 GMT"))
    }

    @Test(arguments: [
        "Mon, 01 Jan 2024 00:00:00 GMT",  // the same second: two versions could share it
        "Sun, 31 Dec 2023 23:59:59 GMT",  // earlier
        "Monday, 01-Jan-24 00:00:05 GMT",  // an obsolete form: not read, so not provably strong
    ])
    func lastModifiedThatIsNotProvablyStrongIsRefused(date: String) {
        let response = head(200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", .date: date])
        #expect(DownloadValidator(response: response) == nil)
    }

    @Test func lastModifiedWithoutADateIsRefused() {
        #expect(DownloadValidator(response: head(200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT"])) == nil)
    }

    @Test(arguments: ["\"\"", "\"a b\"", "abc", "\"abc", "W/\"abc\""])
    func onlyWellFormedStrongTagsCount(tag: String) {
        let validator = DownloadValidator(response: head(200, [.eTag: tag]))
        #expect(validator == (tag == "\"\"" ? .entityTag("\"\"") : nil))
    }

    @Test func aResponseContradictsAValidatorOnlyWithADifferentValueOfTheSameKind() {
        let tag = DownloadValidator.entityTag("\"v1\"")
        #expect(tag.isConsistent(with: head(206, [.eTag: "\"v1\""])))
        #expect(tag.isConsistent(with: head(206)))
        #expect(!tag.isConsistent(with: head(206, [.eTag: "\"v2\""])))
        let date = DownloadValidator.lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(date.isConsistent(with: head(206, [.eTag: "\"v2\""])))
        #expect(!date.isConsistent(with: head(206, [.lastModified: "Tue, 02 Jan 2024 00:00:00 GMT"])))
    }
}

@Suite struct ContentRangeTests {
    @Test(arguments: [
        ("bytes 0-99/1000", 0...99 as ClosedRange<Int64>?, 1000 as Int64?),
        ("bytes 100-999/1000", 100...999, 1000),
        ("bytes 5-9/*", 5...9, nil),
        ("bytes */1000", nil, 1000),
        ("Bytes 0-0/1", 0...0, 1),
        ("  bytes 1-2/3  ", 1...2, 3),
    ])
    func parsesByteRanges(value: String, range: ClosedRange<Int64>?, complete: Int64?) throws {
        let parsed = try #require(ContentRange(value))
        #expect(parsed.range == range)
        #expect(parsed.completeLength == complete)
    }

    @Test(arguments: [
        "", "bytes", "bytes */*", "items 0-1/2", "bytes 10-5/100", "bytes 0-100/100", "bytes -1-5/10",
        "bytes 0-5", "bytes a-b/c", "bytes 0-99999999999999999999/*",
    ])
    func refusesAnythingElse(value: String) {
        #expect(ContentRange(value) == nil)
    }
}

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
