import Testing
import Transport

@testable import TransportCurl

/// The progress throttle on instants the test chooses: no clock, no sleep.
///
/// Checked to fail without the throttle: with `report` emitting whenever a figure changed,
/// `emitsAtMostOneEventPerDirectionPerInterval` receives ten download events instead of two;
/// with the held-back figures recorded as shown (as before), the later report of
/// `figuresHeldBackByTheInterval…` emits nothing and the bar stays where the burst began;
/// without the total rule, `aDirectionThatReachesItsTotalGoesOutAtOnce` receives nothing.
@Suite struct ProgressThrottleTests {
    /// The instant every test's transfer starts at.
    static let start = ContinuousClock.now

    /// One progress event, comparable.
    enum Emitted: Equatable {
        /// `.uploadProgress`.
        case upload(TransferProgress)
        /// `.downloadProgress`.
        case download(TransferProgress)
    }

    /// The progress events one call emitted (any other event is recorded as an issue).
    private static func events(_ report: ((TransferEvent) -> Void) -> Void) -> [Emitted] {
        var events: [Emitted] = []
        report { event in
            switch event {
            case .uploadProgress(let progress): events.append(.upload(progress))
            case .downloadProgress(let progress): events.append(.download(progress))
            default: Issue.record("unexpected event \(event)")
            }
        }
        return events
    }

    @Test func emitsTheFirstChangeOfEachDirectionAtOnceUploadFirst() {
        var throttle = ProgressThrottle(started: Self.start)
        let events = Self.events { emit in
            throttle.report(
                downloadTotal: 1000, downloaded: 100, uploadTotal: 50, uploaded: 50,
                now: Self.start + .seconds(1), emit: emit)
        }
        #expect(
            events == [
                .upload(TransferProgress(completed: 50, total: 50, bytesPerSecond: 50, isFinal: false)),
                .download(TransferProgress(completed: 100, total: 1000, bytesPerSecond: 100, isFinal: false)),
            ])
    }

    @Test func emitsNothingForAReportWithNothingNew() {
        var throttle = ProgressThrottle(started: Self.start)
        let first = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 0, uploadTotal: 0, uploaded: 0, now: Self.start + .seconds(1), emit: emit)
        }
        throttle.report(downloadTotal: 10, downloaded: 5, uploadTotal: 0, uploaded: 0, now: Self.start) { _ in }
        let repeated = Self.events { emit in
            throttle.report(
                downloadTotal: 10, downloaded: 5, uploadTotal: 0, uploaded: 0, now: Self.start + .seconds(9),
                emit: emit)
        }
        #expect(first.isEmpty)
        #expect(repeated.isEmpty)
    }

    @Test func emitsAtMostOneEventPerDirectionPerInterval() {
        var throttle = ProgressThrottle(started: Self.start)
        var downloads: [Int64] = []
        // Reports 10 ms apart: only those 50 ms or more after the last event go out.
        for step in 0..<10 {
            throttle.report(
                downloadTotal: 0, downloaded: Int64(step + 1) * 10, uploadTotal: 0, uploaded: 0,
                now: Self.start + .milliseconds(10 * step)
            ) { event in
                if case .downloadProgress(let progress) = event { downloads.append(progress.completed) }
            }
        }
        #expect(downloads == [10, 60])
    }

    @Test func figuresHeldBackByTheIntervalGoOutWithALaterReportThatBringsNothingNew() {
        // Given an upload whose first bytes went out at once, and more 10 ms later, held back
        var throttle = ProgressThrottle(started: Self.start)
        throttle.report(downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 1000, now: Self.start) { _ in }
        let heldBack = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 2000,
                now: Self.start + .milliseconds(10), emit: emit)
        }

        // When libcurl reports the same figures a second later, while the server has not answered
        let later = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 3000, now: Self.start + .seconds(1),
                emit: emit)
        }

        // Then the held-back figures go out then, once
        let again = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 3000, now: Self.start + .seconds(2),
                emit: emit)
        }
        #expect(heldBack.isEmpty)
        #expect(
            later == [.upload(TransferProgress(completed: 3000, total: 3000, bytesPerSecond: 3000, isFinal: false))])
        #expect(again.isEmpty)
    }

    @Test func aDirectionThatReachesItsTotalGoesOutAtOnce() {
        // Given an upload of 3,000 bytes whose first 1,000 went out at once
        var throttle = ProgressThrottle(started: Self.start)
        throttle.report(downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 1000, now: Self.start) { _ in }

        // When the rest goes out 10 ms later, within the interval
        let events = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 0, uploadTotal: 3000, uploaded: 3000,
                now: Self.start + .milliseconds(10), emit: emit)
        }

        // Then the whole upload is reported at once, not when the server answers
        #expect(
            events == [.upload(TransferProgress(completed: 3000, total: 3000, bytesPerSecond: 300_000, isFinal: false))]
        )
    }

    @Test func throttlesEachDirectionOnItsOwn() {
        var throttle = ProgressThrottle(started: Self.start)
        throttle.report(downloadTotal: 0, downloaded: 1, uploadTotal: 0, uploaded: 0, now: Self.start) { _ in }
        let events = Self.events { emit in
            throttle.report(
                downloadTotal: 0, downloaded: 2, uploadTotal: 0, uploaded: 1, now: Self.start + .milliseconds(1),
                emit: emit)
        }
        #expect(events.count == 1)
        guard case .upload(let progress) = events.first else {
            Issue.record("expected one upload event, got \(events)")
            return
        }
        #expect(progress.completed == 1)
    }

    @Test func closesEachDirectionThatMovedBytesWithAFinalEvent() {
        var throttle = ProgressThrottle(started: Self.start)
        throttle.report(downloadTotal: 0, downloaded: 400, uploadTotal: 200, uploaded: 200, now: Self.start) { _ in }
        throttle.report(
            downloadTotal: 0, downloaded: 800, uploadTotal: 200, uploaded: 200, now: Self.start + .milliseconds(1)
        ) { _ in }
        let events = Self.events { emit in throttle.reportFinal(now: Self.start + .seconds(2), emit: emit) }
        #expect(
            events == [
                .upload(TransferProgress(completed: 200, total: 200, bytesPerSecond: 100, isFinal: true)),
                .download(TransferProgress(completed: 800, total: nil, bytesPerSecond: 400, isFinal: true)),
            ])
    }

    @Test func closesNothingForATransferThatMovedNoBytes() {
        let throttle = ProgressThrottle(started: Self.start)
        #expect(Self.events { emit in throttle.reportFinal(now: Self.start + .seconds(1), emit: emit) }.isEmpty)
    }
}
