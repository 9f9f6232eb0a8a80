import Testing

@testable import TransportCurl

/// When the loop wakes, on instants the test chooses: no clock, no sleep.
///
/// Checked to fail: with the wait rounded down instead of up, "half a millisecond to go"
/// gives 0 (the loop would spin until the deadline) and "a fraction past a millisecond"
/// gives 1.
@Suite struct LoopWakeRulesTests {
    static let now = LoopInstant(nanoseconds: 7_000_000_000)

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        var curlTimer: Duration?
        var stallCheck: Duration?
        var commandsPending = false
        let timeout: Int32
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing to wait for", timeout: -1),
        Row(name: "commands pending", curlTimer: .seconds(5), commandsPending: true, timeout: 0),
        Row(name: "commands pending and nothing else", commandsPending: true, timeout: 0),
        Row(name: "libcurl's timer alone", curlTimer: .milliseconds(250), timeout: 250),
        Row(name: "libcurl asks to run at once", curlTimer: .zero, timeout: 0),
        Row(name: "libcurl's timer is past", curlTimer: .milliseconds(-3), stallCheck: .seconds(1), timeout: 0),
        Row(name: "a stall check alone", stallCheck: .seconds(2), timeout: 2000),
        Row(name: "the stall check comes first", curlTimer: .seconds(10), stallCheck: .milliseconds(125), timeout: 125),
        Row(name: "libcurl's timer comes first", curlTimer: .milliseconds(40), stallCheck: .seconds(3), timeout: 40),
        Row(name: "half a millisecond to go", curlTimer: .microseconds(500), timeout: 1),
        Row(name: "a fraction past a millisecond", curlTimer: .microseconds(1_001), timeout: 2),
        Row(name: "a day away is capped at an hour", stallCheck: .seconds(86_400), timeout: 3_600_000),
    ]

    @Test(arguments: rows)
    func waitsUntilTheEarliestDeadline(_ row: Row) {
        let timeout = LoopWakeRules.timeout(
            now: Self.now, curlTimer: row.curlTimer.map { Self.now + $0 },
            nextStallCheck: row.stallCheck.map { Self.now + $0 }, commandsPending: row.commandsPending)
        #expect(timeout == row.timeout)
    }

    @Test func libcurlsTimerArgumentBecomesAnInstant() {
        #expect(LoopWakeRules.curlTimer(milliseconds: -1, now: Self.now) == nil)
        #expect(LoopWakeRules.curlTimer(milliseconds: 0, now: Self.now) == Self.now)
        #expect(LoopWakeRules.curlTimer(milliseconds: 1500, now: Self.now) == Self.now + .milliseconds(1500))
        #expect(LoopWakeRules.curlTimer(milliseconds: 1500, now: Self.now)?.nanoseconds == 8_500_000_000)
    }

    @Test func aTimerIsDueFromItsInstantOn() {
        #expect(!LoopWakeRules.isDue(nil, now: Self.now))
        #expect(!LoopWakeRules.isDue(Self.now + .microseconds(1), now: Self.now))
        #expect(LoopWakeRules.isDue(Self.now, now: Self.now))
        #expect(LoopWakeRules.isDue(Self.now + .seconds(-1), now: Self.now))
    }

    /// libcurl said nothing during a timeout action: the timer is what `curl_multi_timeout`
    /// then says (none, at once, or that many milliseconds on), and a millisecond on only when
    /// libcurl could not say.
    ///
    /// Checked to fail: with a silent timeout taken for a timer still pending (a millisecond
    /// on), "no timer left" gave `now + 1 ms` instead of none.
    @Test func aTimeoutLibcurlDidNotAnswerTakesTheTimerLibcurlReports() {
        #expect(LoopWakeRules.curlTimerAfterSilentTimeout(libcurlSays: -1, now: Self.now) == nil)
        #expect(LoopWakeRules.curlTimerAfterSilentTimeout(libcurlSays: 0, now: Self.now) == Self.now)
        #expect(
            LoopWakeRules.curlTimerAfterSilentTimeout(libcurlSays: 1, now: Self.now) == Self.now + .milliseconds(1))
        #expect(
            LoopWakeRules.curlTimerAfterSilentTimeout(libcurlSays: 2500, now: Self.now)
                == Self.now + .milliseconds(2500))
        #expect(
            LoopWakeRules.curlTimerAfterSilentTimeout(libcurlSays: nil, now: Self.now) == Self.now + .milliseconds(1))
    }
}
