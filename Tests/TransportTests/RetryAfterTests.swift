import Foundation
import Testing
import Transport

@Suite struct RetryAfterTests {
    /// 2026-11-22 03:00:00 GMT.
    let now = Date(timeIntervalSince1970: 1_795_316_400)

    @Test(arguments: [("0", 0), ("1", 1), ("120", 120), (" 30 ", 30)])
    func readsSeconds(value: String, seconds: Int64) {
        #expect(RetryAfter.delay(from: value, now: now) == .seconds(seconds))
    }

    @Test(arguments: [
        "Sun, 22 Nov 2026 03:01:30 GMT",  // IMF-fixdate
        "Sunday, 22-Nov-26 03:01:30 GMT",  // RFC 850
        "Sun Nov 22 03:01:30 2026",  // asctime
    ])
    func readsEveryFormOfAnHTTPDate(value: String) {
        #expect(RetryAfter.delay(from: value, now: now) == .seconds(90))
    }

    @Test func readsTheAsctimeFormWithAPaddedDay() {
        let early = Date(timeIntervalSince1970: 1_794_020_400)  // 2026-11-07 03:00:00 GMT
        #expect(RetryAfter.delay(from: "Sat Nov  7 03:00:10 2026", now: early) == .seconds(10))
    }

    @Test func aDateInThePastMeansNoWait() {
        #expect(RetryAfter.delay(from: "Sat, 21 Nov 2026 03:00:00 GMT", now: now) == .zero)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Sun, 22 Nov 2026 03:01:30", "12abc", "Mon, 30 Feb 2026 00:00:00 GMT"])
    func anythingElseIsNotARetryAfter(value: String) {
        #expect(RetryAfter.delay(from: value, now: now) == nil)
    }

    @Test func aNumberTooLargeForAnIntegerIsTheLongestWait() {
        #expect(RetryAfter.delay(from: "99999999999999999999999", now: now) == .seconds(Int64.max))
    }
}
