import Downloads
import HTTPTypes
import Testing
import Transport

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
