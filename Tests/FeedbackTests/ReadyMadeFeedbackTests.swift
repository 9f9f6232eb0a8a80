import Feedback
import FeedbackTesting
import Mapping
import Testing
import Transport

/// The ready-made loaders, bars and alerts, each presenting through a recorder of its own.
@Suite struct ReadyMadeFeedbackTests {
    @Test func loadTypeNoneShowsNoMask() {
        let recorder = RecordingPresenter()
        let loader = LoadType.none.presenting(through: recorder)
        let activity = ActivityID.next()
        loader.begin(activity)
        loader.end(activity, outcome: .succeeded)
        #expect(!recorder.events.contains { if case .maskBegan = $0 { true } else { false } })
        #expect(recorder.outputs.allSatisfy { if case .maskSummary = $0 { false } else { true } })
    }

    @Test func loadTypeDefaultPutsASpinnerOnItsContainer() {
        let recorder = RecordingPresenter()
        let row = ListRow(label: "Toronto")
        let loader = LoadType.default(container: row).presenting(through: recorder)
        let activity = ActivityID.next()
        loader.begin(activity)
        #expect(recorder.masks(on: row).map(\.maskId) == ["spinner"])
        loader.end(activity, outcome: .succeeded)
        #expect(recorder.masks(on: row).isEmpty)
        #expect(recorder.everMasked(row, maskId: "spinner"))
    }

    @Test func progressTypeNoneShowsNoBarAndABarShowsOne() {
        let recorder = RecordingPresenter()
        let progress = TransferProgress(completed: 10, total: 10, bytesPerSecond: 5, isFinal: true)
        for type in [ProgressType.none, .bar(label: "radar.png")] {
            let bar = type.presenting(through: recorder)
            let activity = ActivityID.next()
            bar.progressBegan(activity)
            bar.progressChanged(activity, direction: .download, progress: progress)
            bar.progressRetrying(activity, notice: RetryNotice(attempt: 2, reason: "HTTP 503"))
            bar.progressEnded(activity, outcome: .succeeded)
        }
        #expect(recorder.progress(label: "radar.png") == [progress])
        #expect(recorder.progress(label: "").isEmpty)
        #expect(recorder.retries.count == 1)
        #expect(recorder.transferOutcomes(label: "radar.png") == [.succeeded])
    }

    @Test func anAlertUsesItsOwnPresenterCatalogAndTitle() throws {
        let recorder = RecordingPresenter()
        let alert = Alert(title: "天气", presenter: recorder, catalog: .simplifiedChinese)
        alert.warn(TransportError(.connectionRefused, message: "refused"))
        let warning = try #require(recorder.warnings.first)
        #expect(warning.title == "天气")
        #expect(warning.text == MessageCatalog.simplifiedChinese[.transport(.connectionRefused)])
    }

    @Test func anAlertInformsWithItsSuccessMessageWhenTheValueSaysNothing() {
        let recorder = RecordingPresenter()
        let alert = Alert(successMessage: "Saved.", presenter: recorder)
        alert.inform(42)
        alert.inform(EnvelopeHead(code: 200, message: "Report received"))
        alert.inform(EnvelopeHead(code: 201, message: "Not a success code here"))
        #expect(recorder.informations.map(\.text) == ["Saved.", "Report received"])
    }
}
