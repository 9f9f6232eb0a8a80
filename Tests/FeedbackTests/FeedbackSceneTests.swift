import Feedback
import Mapping
import Testing
import Transport

@Suite struct FeedbackSceneTests {
    static let forecast = Panel(title: "Forecast")
    static let radar = Panel(title: "Radar")

    static func began(_ activity: UInt64, on container: some Containable, mask: any Maskable = SpinnerMask())
        -> FeedbackEvent
    {
        .maskBegan(
            MaskPlacement(
                activity: ActivityID(rawValue: activity), mask: mask, container: container.maskTarget.containerInfo))
    }

    static func ended(_ activity: UInt64, _ outcome: ActivityOutcome = .succeeded) -> FeedbackEvent {
        .maskEnded(ActivityID(rawValue: activity), outcome: outcome)
    }

    static func activities(_ region: FeedbackScene.Region?) -> [UInt64] {
        region?.masks.map(\.placement.activity.rawValue) ?? []
    }

    // MARK: - Masks

    @Test func stacksTheMasksOfOverlappingRequestsOnOneContainer() {
        var scene = FeedbackScene()
        // Given two requests on the forecast panel
        _ = scene.apply(Self.began(1, on: Self.forecast, mask: .spinner("Loading Toronto…")), at: .zero)
        _ = scene.apply(Self.began(2, on: Self.forecast, mask: .hud("Loading Paris…")), at: .seconds(1))
        // Then the stack is two deep and the newest is the one shown
        let region = scene.region(Self.forecast.containerId)
        #expect(Self.activities(region) == [1, 2])
        #expect(region?.visibleMask?.placement.appearance.text == "Loading Paris…")
        #expect(scene.regions.count == 1)

        // When the first ends, the other is shown
        _ = scene.apply(Self.ended(1), at: .seconds(2))
        #expect(Self.activities(scene.region(Self.forecast.containerId)) == [2])
        #expect(scene.region(Self.forecast.containerId)?.visibleMask?.placement.maskId == "hud")

        // When the last ends, the region is gone
        _ = scene.apply(Self.ended(2), at: .seconds(3))
        #expect(scene.region(Self.forecast.containerId) == nil)
        #expect(scene.isEmpty)
    }

    @Test func keepsTheMasksOfTwoContainersApart() {
        var scene = FeedbackScene()
        _ = scene.apply(Self.began(1, on: Self.forecast), at: .zero)
        _ = scene.apply(Self.began(2, on: Self.radar), at: .zero)
        _ = scene.apply(Self.began(3, on: Self.radar), at: .zero)
        _ = scene.apply(Self.ended(1), at: .seconds(1))
        #expect(scene.region(Self.forecast.containerId) == nil)
        #expect(Self.activities(scene.region(Self.radar.containerId)) == [2, 3])
        #expect(scene.regions.map(\.id) == [Self.radar.containerId])
    }

    @Test func summarisesAMaskWhenItEnds() {
        var scene = FeedbackScene()
        _ = scene.apply(Self.began(1, on: Self.forecast), at: .seconds(1))
        let output = scene.apply(Self.ended(1, .failed), at: .milliseconds(3500))
        guard case .maskSummary(let placement, let outcome, let elapsed) = output.first else {
            Issue.record("expected a summary, got \(output)")
            return
        }
        #expect(output.count == 1)
        #expect(placement.container.id == Self.forecast.containerId)
        #expect(outcome == .failed)
        #expect(elapsed == .milliseconds(2500))
    }

    @Test func ignoresTheEndOfAnActivityItNeverSaw() {
        var scene = FeedbackScene()
        _ = scene.apply(Self.began(1, on: Self.forecast), at: .zero)
        let output = scene.apply(Self.ended(99), at: .seconds(1))
        #expect(output.isEmpty)
        #expect(Self.activities(scene.region(Self.forecast.containerId)) == [1])
    }

    // MARK: - Scrolling logs

    @Test func putsTheMaskOfAScrollingLogOnTheRegionAroundIt() {
        let log = ScrollingLog(id: "events", in: Self.forecast, presenter: DiscardingPresenter())
        var scene = FeedbackScene()
        _ = scene.apply(Self.began(1, on: log), at: .zero)
        #expect(scene.region(log.containerId) == nil)
        #expect(Self.activities(scene.region(Self.forecast.containerId)) == [1])
        #expect(ScrollingLog(presenter: DiscardingPresenter()).maskTarget.containerId == Screen().containerId)
    }

    @Test func holdsLogLinesWhileTheRegionIsMaskedAndPrintsThemInOrderAfterTheLastMask() {
        let log = ScrollingLog(id: "events", in: Self.forecast, presenter: DiscardingPresenter())
        var scene = FeedbackScene()
        // Given a line printed before any mask
        #expect(
            scene.apply(.logLine("started", log: log.containerInfo), at: .zero) == [
                .logLine("started", log: log.containerInfo)
            ])

        // When two masks cover the log's region and lines are appended
        _ = scene.apply(Self.began(1, on: log), at: .zero)
        _ = scene.apply(Self.began(2, on: Self.forecast), at: .zero)
        #expect(scene.apply(.logLine("Toronto: 20 °C", log: log.containerInfo), at: .zero).isEmpty)
        #expect(scene.apply(.logLine("Paris: 14 °C", log: log.containerInfo), at: .zero).isEmpty)
        #expect(scene.heldLineCount == 2)

        // Then the lines wait for the first mask's end
        let first = scene.apply(Self.ended(1), at: .seconds(1))
        #expect(first.count == 1)
        #expect(scene.heldLineCount == 2)

        // And come out, in order, after the summary of the last
        let last = scene.apply(Self.ended(2), at: .seconds(2))
        #expect(last.count == 3)
        #expect(
            Array(last.dropFirst()) == [
                .logLine("Toronto: 20 °C", log: log.containerInfo), .logLine("Paris: 14 °C", log: log.containerInfo),
            ])
        #expect(scene.heldLineCount == 0)
    }

    @Test func printsLogLinesAtOnceWhenAnotherRegionIsMasked() {
        let log = ScrollingLog(id: "events", in: Self.forecast, presenter: DiscardingPresenter())
        var scene = FeedbackScene()
        _ = scene.apply(Self.began(1, on: Self.radar), at: .zero)
        let output = scene.apply(.logLine("Toronto: 20 °C", log: log.containerInfo), at: .zero)
        #expect(output == [.logLine("Toronto: 20 °C", log: log.containerInfo)])
    }

    // MARK: - Transfers

    @Test func followsATransferFromItsFirstProgressToItsSummary() {
        var scene = FeedbackScene()
        let activity = ActivityID(rawValue: 7)
        let half = TransferProgress(completed: 500, total: 1000, bytesPerSecond: 250, isFinal: false)
        let done = TransferProgress(completed: 1000, total: 1000, bytesPerSecond: 250, isFinal: true)

        _ = scene.apply(
            .progressBegan(activity, label: "radar.png", container: Screen().containerInfo), at: .seconds(1))
        #expect(scene.transfers.map(\.label) == ["radar.png"])
        #expect(scene.transfers.first?.progress == nil)

        _ = scene.apply(.progressChanged(activity, direction: .download, progress: half), at: .seconds(2))
        #expect(scene.transfers.first?.progress == half)
        #expect(scene.transfers.first?.direction == .download)

        _ = scene.apply(.progressChanged(activity, direction: .download, progress: done), at: .seconds(3))
        let output = scene.apply(.progressEnded(activity, outcome: .succeeded), at: .seconds(5))
        guard case .transferSummary(let transfer, let outcome, let elapsed) = output.first else {
            Issue.record("expected a summary, got \(output)")
            return
        }
        #expect(transfer.progress == done)
        #expect(outcome == .succeeded)
        #expect(elapsed == .seconds(4))
        #expect(scene.transfers.isEmpty)
    }

    @Test func keepsFollowingTheUploadWhenTheAnswerArrives() {
        // Given an upload whose last progress is sent
        var scene = FeedbackScene()
        let activity = ActivityID(rawValue: 7)
        let sent = TransferProgress(completed: 3_000_000, total: 3_000_000, bytesPerSecond: 9_000_000, isFinal: true)
        let answer = TransferProgress(completed: 173, total: 173, bytesPerSecond: 100, isFinal: true)
        _ = scene.apply(.progressBegan(activity, label: "sky.jpg", container: Screen().containerInfo), at: .zero)
        _ = scene.apply(.progressChanged(activity, direction: .upload, progress: sent), at: .seconds(1))

        // When the small answer comes back
        _ = scene.apply(.progressChanged(activity, direction: .download, progress: answer), at: .seconds(2))

        // Then the bar still shows what was sent
        #expect(scene.transfers.first?.direction == .upload)
        #expect(scene.transfers.first?.progress == sent)
    }

    @Test func ignoresProgressOfUnknownTransfersAndASecondBeginning() {
        var scene = FeedbackScene()
        let activity = ActivityID(rawValue: 7)
        let progress = TransferProgress(completed: 1, total: nil, bytesPerSecond: 1, isFinal: false)
        _ = scene.apply(.progressChanged(activity, direction: .upload, progress: progress), at: .zero)
        #expect(scene.transfers.isEmpty)
        _ = scene.apply(.progressBegan(activity, label: "a", container: Screen().containerInfo), at: .zero)
        _ = scene.apply(.progressBegan(activity, label: "b", container: Screen().containerInfo), at: .zero)
        #expect(scene.transfers.map(\.label) == ["a"])
        #expect(scene.apply(.progressEnded(ActivityID(rawValue: 8), outcome: .failed), at: .zero).isEmpty)
    }

    // MARK: - Retries and messages

    @Test func attachesARetryNoticeToTheEntryOfItsRequest() {
        var scene = FeedbackScene()
        let notice = RetryNotice(attempt: 2, maximumAttempts: 3, reason: "HTTP 503")
        _ = scene.apply(Self.began(1, on: Self.forecast, mask: .spinner("Loading Toronto…")), at: .zero)
        _ = scene.apply(Self.began(2, on: Self.forecast, mask: .spinner("Loading Paris…")), at: .zero)
        _ = scene.apply(
            .progressBegan(ActivityID(rawValue: 3), label: "radar.png", container: Screen().containerInfo), at: .zero)

        // When the first request retries
        let output = scene.apply(.retrying(ActivityID(rawValue: 1), notice), at: .zero)

        // Then only its mask carries the notice
        let masks = scene.region(Self.forecast.containerId)?.masks ?? []
        #expect(masks.map(\.retry) == [notice, nil])
        #expect(scene.transfers.first?.retry == nil)
        #expect(output == [.retry(notice, label: "Loading Toronto…")])

        // And a transfer's retry goes to its bar
        let transferOutput = scene.apply(.retrying(ActivityID(rawValue: 3), notice), at: .zero)
        #expect(scene.transfers.first?.retry == notice)
        #expect(transferOutput == [.retry(notice, label: "radar.png")])
    }

    @Test func ignoresARetryOfAnUnknownRequest() {
        var scene = FeedbackScene()
        let output = scene.apply(
            .retrying(ActivityID(rawValue: 5), RetryNotice(attempt: 2, reason: "timeout")), at: .zero)
        #expect(output.isEmpty)
    }

    @Test func printsMessagesAtOnce() {
        var scene = FeedbackScene()
        let message = FeedbackMessage(severity: .warning, text: "Unknown city: Atlantis", code: 404)
        let container = Self.forecast.containerInfo
        _ = scene.apply(Self.began(1, on: Self.forecast), at: .zero)
        #expect(
            scene.apply(.message(message, container: container), at: .zero) == [.message(message, container: container)]
        )
    }
}
