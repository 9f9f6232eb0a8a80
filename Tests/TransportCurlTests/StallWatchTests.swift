import Testing

@testable import TransportCurl

/// The stall watch on instants the test chooses: no clock, no sleep. Each test is a table of
/// samples, each with the answer expected for it.
///
/// Checked to fail: with `>` for `>=`, every table misses the stall at its timeout; with
/// excused samples not restarting the clock, `anExcusedSampleRestartsTheClock` stalls early;
/// with a changed count not restarting it, `aMovingCountRestartsTheClock` does; with a check
/// every quarter of the timeout, `checksEightTimesPerTimeout` fails.
@Suite struct StallWatchTests {
    /// The instant every table starts at.
    static let start = LoopInstant(nanoseconds: 5_000_000_000)
    /// The stall timeout of every table.
    static let timeout = Duration.seconds(1)

    /// One sample of a transfer and the answer expected for it.
    struct Sample {
        /// The running byte count.
        var bytes: Int64
        /// Whether the caller paused the transfer.
        var excused = false
        /// When, after ``StallWatchTests/start``.
        var at: Duration
        /// Whether the transfer counts as stalled.
        var stalled: Bool
    }

    /// Feeds `samples` to a new watch in turn and expects each answer.
    static func check(_ samples: [Sample], sourceLocation: SourceLocation = #_sourceLocation) {
        var watch = StallWatch()
        for (index, sample) in samples.enumerated() {
            let stalled = watch.isStalled(
                bytesMoved: sample.bytes, excused: sample.excused, now: start + sample.at, timeout: timeout)
            #expect(stalled == sample.stalled, "sample \(index + 1)", sourceLocation: sourceLocation)
        }
    }

    @Test func stallsOnceTheCountHasNotMovedForTheTimeout() {
        Self.check([
            Sample(bytes: 0, at: .zero, stalled: false),
            Sample(bytes: 0, at: .milliseconds(999), stalled: false),
            Sample(bytes: 0, at: .seconds(1), stalled: true),
            Sample(bytes: 0, at: .seconds(5), stalled: true),
        ])
    }

    @Test func theFirstSampleStartsTheClockWhateverItsCount() {
        Self.check([
            Sample(bytes: 500, at: .seconds(10), stalled: false),
            Sample(bytes: 500, at: .milliseconds(10_500), stalled: false),
            Sample(bytes: 500, at: .seconds(11), stalled: true),
        ])
    }

    @Test func aMovingCountRestartsTheClock() {
        Self.check([
            Sample(bytes: 0, at: .zero, stalled: false),
            Sample(bytes: 10, at: .milliseconds(900), stalled: false),
            Sample(bytes: 10, at: .milliseconds(1_800), stalled: false),
            Sample(bytes: 20, at: .milliseconds(2_700), stalled: false),
            Sample(bytes: 20, at: .milliseconds(3_700), stalled: true),
        ])
    }

    @Test func anExcusedSampleRestartsTheClock() {
        Self.check([
            Sample(bytes: 0, at: .zero, stalled: false),
            Sample(bytes: 0, excused: true, at: .milliseconds(900), stalled: false),
            Sample(bytes: 0, excused: true, at: .seconds(3), stalled: false),
            Sample(bytes: 0, at: .milliseconds(3_999), stalled: false),
            Sample(bytes: 0, at: .seconds(4), stalled: true),
        ])
    }

    /// A transfer is looked at eight times per stall timeout, however short the timeout.
    @Test func checksEightTimesPerTimeout() {
        #expect(StallWatch.checkInterval(for: .seconds(30)) == .milliseconds(3750))
        #expect(StallWatch.checkInterval(for: .seconds(1)) == .milliseconds(125))
        #expect(StallWatch.checkInterval(for: .microseconds(80)) == .milliseconds(1))
    }
}
