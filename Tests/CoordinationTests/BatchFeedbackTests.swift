import Coordination
import Feedback
import FeedbackTesting
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

/// A batch's count through the Feedback chain, as a feature test sees it.
@Suite struct BatchFeedbackTests {
    /// The counts a recorder's bars were given, in order.
    func counts(_ recorder: RecordingPresenter) -> [CountProgress] {
        recorder.events.compactMap { event in
            if case .progressCounted(_, let count) = event { return count }
            return nil
        }
    }

    @Test func aBatchsBarCountsItsMembersDone() async throws {
        try await withServerAndTransport { server, counting in
            let recorder = RecordingPresenter()
            let batch = RequestBatch.all(0..<20, maximumConcurrent: 3, startImmediately: false) { index in
                fetch(server.url("/delay/50?member=\(index)"), through: counting)
            }
            .progress(ProgressType.bar(label: "forecasts").presenting(through: recorder))
            batch.start()
            _ = try await batch.value

            #expect(counts(recorder).map(\.completed) == Array(0...20))
            #expect(counts(recorder).allSatisfy { $0.total == 20 && $0.failed == 0 })
            #expect(counts(recorder).contains(CountProgress(completed: 7, total: 20)))
            #expect(MessageCatalog.english.text(for: counts(recorder)[7]) == "7 of 20 done")
            #expect(recorder.transferOutcomes(label: "forecasts") == [.succeeded])
            #expect(recorder.isClear)
            let summary = recorder.outputs.compactMap { output -> FeedbackScene.Transfer? in
                if case .transferSummary(let transfer, _, _) = output { return transfer }
                return nil
            }
            #expect(summary.first?.count == CountProgress(completed: 20, total: 20))
        }
    }

    @Test func whileItRunsTheSceneHoldsTheNewestCount() async throws {
        try await withServerAndTransport { server, counting in
            let recorder = RecordingPresenter()
            let paths = ["/status/500", "/echo"] + Array(repeating: "/delay/10000", count: 3)
            let batch = RequestBatch.all(paths, maximumConcurrent: 3) { path in
                fetch(server.url(path), through: counting)
            }
            .progress(ProgressType.bar(label: "forecasts").presenting(through: recorder))
            try await waitUntil { recorder.scene.transfers.first?.count?.completed == 2 }
            let live = try #require(recorder.scene.transfers.first?.count)
            #expect(live == CountProgress(completed: 2, failed: 1, total: 5))
            #expect(MessageCatalog.english.text(for: live) == "2 of 5 done, 1 failed")
            batch.cancel()
            _ = await batch.result
            #expect(recorder.transferOutcomes(label: "forecasts") == [.cancelled])
        }
    }
}
