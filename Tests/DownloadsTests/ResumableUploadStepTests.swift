import Downloads
import Foundation
import HTTPTypes
import Testing

/// The fields of draft-ietf-httpbis-resumable-upload-05 and the client's decisions, as tables.
struct ResumableUploadStepTests {
    private static let retryable: Set<Int> = [408, 429, 500, 502, 503, 504]

    private static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    @Test(
        arguments: [
            ("?1", true), ("?0", false), (" ?1 ", true), ("?1;a=b", true), ("1", nil), ("true", nil), ("?2", nil),
            ("", nil),
        ] as [(String, Bool?)])
    func readsStructuredBooleans(value: String, expected: Bool?) {
        #expect(ResumableUploadFields.parseBoolean(value) == expected)
    }

    @Test(
        arguments: [
            ("0", 0), ("100", 100), ("999999999999999", 999_999_999_999_999), ("-5", nil), ("+5", nil), ("1e3", nil),
            ("1000000000000000", nil), ("", nil), ("12;p=1", 12),
        ] as [(String, Int64?)])
    func readsOffsetsAsNonNegativeStructuredIntegers(value: String, expected: Int64?) {
        #expect(ResumableUploadFields.parseOffset(value) == expected)
    }

    @Test func readsTheLimitsItUsesFromUploadLimit() {
        let limit = ResumableUploadFields.parseLimit("max-size=1000000, max-append-size=65536, expires=3600, x=?1")
        #expect(limit == ResumableUploadFields.Limit(maximumSize: 1_000_000, maximumAppendSize: 65536))
        #expect(ResumableUploadFields.parseLimit("max-append-size=0").maximumAppendSize == nil)
        #expect(ResumableUploadFields.parseLimit(nil) == ResumableUploadFields.Limit())
        #expect(ResumableUploadFields.boolean(true) == "?1")
        #expect(ResumableUploadFields.interopFields()[ResumableUploadFields.interopVersionName] == "6")
    }

    @Test(
        arguments: [
            // status, Upload-Complete, knows the URL, expected
            (201, "?1", true, UploadStep.complete),
            (200, nil, false, .complete),  // a plain server took the whole file
            (201, "?0", true, .askOffset),
            (201, "?0", false, .notResumable("it kept part of the upload without giving its URL")),
            (503, nil, true, .retry),
            (400, nil, true, .rejected),
            (404, nil, false, .rejected),
        ] as [(Int, String?, Bool, UploadStep)])
    func decidesAfterTheCreation(status: Int, complete: String?, knows: Bool, expected: UploadStep) {
        let fields = Self.fields(complete.map { [("Upload-Complete", $0)] } ?? [])
        #expect(
            UploadStep.afterCreation(
                status: status, fields: fields, knowsUploadURL: knows, retryableStatuses: Self.retryable) == expected)
    }

    @Test(
        arguments: [
            // status, Upload-Offset, Upload-Complete, expected (a 1000-byte file)
            (204, "400", "?0", UploadStep.append(from: 400)),
            (204, "0", "?0", .append(from: 0)),
            (204, "1000", "?0", .append(from: 1000)),  // all there, not yet completed: an empty append completes it
            (204, "1000", "?1", .complete),
            (204, "1001", "?0", .offsetInvalid(1001)),  // beyond what could have been sent
            (204, "900", "?1", .offsetInvalid(900)),  // complete short of the file
            (204, nil, "?0", .notResumable("its answer to HEAD has no Upload-Offset")),
            (404, nil, nil, .gone),
            (410, nil, nil, .gone),
            (503, nil, nil, .retry),
            (403, nil, nil, .rejected),
        ] as [(Int, String?, String?, UploadStep)])
    func decidesAfterTheOffsetRetrieval(status: Int, offset: String?, complete: String?, expected: UploadStep) {
        var pairs: [(String, String)] = []
        if let offset { pairs.append(("Upload-Offset", offset)) }
        if let complete { pairs.append(("Upload-Complete", complete)) }
        #expect(
            UploadStep.afterOffset(
                status: status, fields: Self.fields(pairs), length: 1000, retryableStatuses: Self.retryable)
                == expected)
    }

    @Test(
        arguments: [
            // status, Upload-Offset, end of the append, expected (a 1000-byte file)
            (200, nil, 1000, UploadStep.complete),
            (204, nil, 600, .append(from: 600)),  // a chunk under max-append-size: the next one follows
            (409, "300", 1000, .append(from: 300)),  // the server's offset, from its answer
            (409, nil, 1000, .askOffset),  // no offset in the answer: ask for it
            (409, "5000", 1000, .offsetInvalid(5000)),
            (410, nil, 1000, .gone),
            (502, nil, 1000, .retry),
            (415, nil, 1000, .rejected),
        ] as [(Int, String?, Int64, UploadStep)])
    func decidesAfterAnAppend(status: Int, offset: String?, end: Int64, expected: UploadStep) {
        let fields = Self.fields(offset.map { [("Upload-Offset", $0)] } ?? [])
        #expect(
            UploadStep.afterAppend(
                status: status, fields: fields, end: end, length: 1000, retryableStatuses: Self.retryable)
                == expected)
    }

    @Test func keepsASidecarThatReadsBackTheSameAndRejectsOthers() throws {
        let record = UploadSidecar(
            url: "http://h/up", uploadURL: "http://h/up/1", length: 10, modified: 1.5, offset: 4)
        #expect(UploadSidecar.decode(try record.encoded()) == record)
        #expect(UploadSidecar.decode(Data("{\"version\":2}".utf8)) == nil)
        #expect(UploadSidecar.path(of: "/a/b.bin") == "/a/b.bin.upload.json")
    }
}
