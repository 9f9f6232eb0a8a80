import Feedback
import FeedbackTesting
import Testing
import Transport

/// A handle that stands for several requests counts them done: the count's words, the scene,
/// and the handle's `progress` chain.
@Suite struct CountProgressFeedbackTests {
    struct Bar: Progressable {
        let presenter: any FeedbackPresenter
        var progressLabel: String { "forecasts" }
    }

    static func counts(_ recorder: RecordingPresenter) -> [CountProgress] {
        recorder.events.compactMap { event in
            if case .progressCounted(_, let count) = event { return count }
            return nil
        }
    }

    @Test func aCountSaysHowManyAreDoneAndHowManyFailed() {
        #expect(MessageCatalog.english.text(for: CountProgress(completed: 7, total: 20)) == "7 of 20 done")
        #expect(
            MessageCatalog.english.text(for: CountProgress(completed: 7, failed: 1, total: 20))
                == "7 of 20 done, 1 failed")
        #expect(MessageCatalog.simplifiedChinese.text(for: CountProgress(completed: 7, total: 20)) == "已完成 7/20")
    }

    @Test func aCountsFractionIsOneWhenThereIsNothingToCount() {
        #expect(CountProgress(completed: 7, total: 20).fractionCompleted == 0.35)
        #expect(CountProgress(completed: 0, total: 0).fractionCompleted == 1)
        #expect(CountProgress(completed: 0, total: 0).isFinal)
        #expect(CountProgress(completed: 3, failed: 1, total: 4).succeeded == 2)
    }

    @Test func theSceneKeepsTheNewestCountAndHandsItToTheSummary() {
        var scene = FeedbackScene()
        let activity = ActivityID(rawValue: 3)
        _ = scene.apply(.progressBegan(activity, label: "forecasts", container: Screen().containerInfo), at: .zero)
        _ = scene.apply(.progressCounted(activity, count: CountProgress(completed: 6, total: 20)), at: .seconds(1))
        _ = scene.apply(.progressCounted(activity, count: CountProgress(completed: 7, total: 20)), at: .seconds(2))
        #expect(scene.transfers.first?.count == CountProgress(completed: 7, total: 20))
        #expect(scene.transfers.first?.progress == nil)
        // A count for a bar that never began is ignored.
        _ = scene.apply(
            .progressCounted(ActivityID(rawValue: 4), count: CountProgress(completed: 1, total: 2)), at: .zero)
        #expect(scene.transfers.count == 1)

        let output = scene.apply(.progressEnded(activity, outcome: .succeeded), at: .seconds(3))
        guard case .transferSummary(let transfer, .succeeded, _) = output.first else {
            Issue.record("expected a summary, got \(output)")
            return
        }
        #expect(transfer.count == CountProgress(completed: 7, total: 20))
    }

    @Test func theProgressChainPresentsEveryCountOfAHandle() async throws {
        let recorder = RecordingPresenter()
        let handle = DataRequest<Int>(startImmediately: false) { events in
            for completed in 0...3 { events.send(.count(CountProgress(completed: completed, total: 3))) }
            return .init(value: 3, response: nil)
        }
        .progress(Bar(presenter: recorder))
        handle.start()
        _ = try await handle.value
        #expect(Self.counts(recorder).map(\.completed) == [0, 1, 2, 3])
        #expect(recorder.transferOutcomes(label: "forecasts") == [.succeeded])
        #expect(recorder.progress(label: "forecasts").isEmpty, "a count is not a byte count")
    }

    @Test func noBarMeansNoCount() async throws {
        let recorder = RecordingPresenter()
        let handle = DataRequest<Int> { events in
            events.send(.count(CountProgress(completed: 1, total: 1)))
            return .init(value: 1, response: nil)
        }
        .progress(ProgressType.none.presenting(through: recorder))
        _ = try await handle.value
        #expect(recorder.events.isEmpty)
    }
}
