import Feedback
import FeedbackTesting
import Mapping
import Testing
import Transport

@Suite struct RecordingPresenterTests {
    /// A clock a test moves by hand.
    final class ManualClock: Sendable {
        private let time = PThreadMutex(Duration.zero)
        var now: Duration { time.withLock { $0 } }
        func advance(by duration: Duration) { time.withLock { $0 += duration } }
    }

    /// A business type that shows everything through the recorder it is given.
    struct CityRow: Containable, Loadable, Warnable, Informable {
        let presenter: any FeedbackPresenter
        var city = "Toronto"
        var mask: (any Maskable)? { .dim("Updating \(city)…") }
        var inset: Inset { Inset(leading: 2) }
        var containerId: String { "row:" + city }
        var containerKind: ContainerKind { .row }
        var catalog: MessageCatalog { .english }
        var successMessage: String? { "Updated." }
    }

    /// A loader whose masks are meant for a scrolling log.
    struct LogLoader: Loadable {
        let presenter: any FeedbackPresenter
        let log: ScrollingLog
        var maskContainer: (any Containable)? { log }
    }

    /// A warning shown in no container.
    struct Banner: Warnable {
        let presenter: any FeedbackPresenter
        var catalog: MessageCatalog { .english }
    }

    struct Download: Progressable {
        let presenter: any FeedbackPresenter
        var progressLabel: String { "radar.png" }
    }

    static func progress(_ completed: Int64, of total: Int64?) -> TransferProgress {
        TransferProgress(completed: completed, total: total, bytesPerSecond: 100, isFinal: completed == total)
    }

    // MARK: - Recording

    @Test func recordsEveryEventInOrder() {
        let recorder = RecordingPresenter()
        let row = CityRow(presenter: recorder)
        row.begin(ActivityID(rawValue: 1))
        row.warn(TransportError(.connectTimeout, message: "No answer in 10 s."))
        row.end(ActivityID(rawValue: 1), outcome: .failed)

        let kinds = recorder.events.map { event -> String in
            switch event {
            case .maskBegan: "maskBegan"
            case .maskEnded: "maskEnded"
            case .message: "message"
            default: "other"
            }
        }
        #expect(kinds == ["maskBegan", "message", "maskEnded"])
        #expect(recorder.outputs.count == 2, "the message and the mask's summary")
    }

    @Test func keepsEveryEventOfConcurrentPresenters() async {
        let recorder = RecordingPresenter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    recorder.present(.logLine("line \(index)", log: ScrollingLog(presenter: recorder).containerInfo))
                }
            }
        }
        #expect(recorder.events.count == 200)
        #expect(Set(recorder.logLines).count == 200)
    }

    @Test func forgetsEverythingWhenAskedTo() {
        let recorder = RecordingPresenter()
        let row = CityRow(presenter: recorder)
        row.begin(ActivityID(rawValue: 1))
        recorder.removeAll()
        #expect(recorder.events.isEmpty)
        #expect(recorder.isClear)
        #expect(!recorder.everMasked(row))
        #expect(recorder.maximumMaskDepth(on: row) == 0)
    }

    // MARK: - Masks

    @Test func answersWhichMasksAreOnAContainerNowAndEver() {
        let recorder = RecordingPresenter()
        let toronto = CityRow(presenter: recorder)
        let paris = CityRow(presenter: recorder, city: "Paris")

        toronto.begin(ActivityID(rawValue: 1))
        toronto.begin(ActivityID(rawValue: 2))
        let masks = recorder.masks(on: toronto)
        #expect(masks.map(\.activity) == [ActivityID(rawValue: 1), ActivityID(rawValue: 2)])
        #expect(masks.first?.maskId == "dim")
        #expect(masks.first?.appearance.text == "Updating Toronto…")
        #expect(masks.first?.inset == Inset(leading: 2))
        #expect(recorder.masks(on: paris).isEmpty)

        toronto.end(ActivityID(rawValue: 1), outcome: .succeeded)
        toronto.end(ActivityID(rawValue: 2), outcome: .cancelled)
        #expect(recorder.masks(on: toronto).isEmpty)
        #expect(recorder.everMasked(toronto))
        #expect(recorder.everMasked(toronto, maskId: "dim"))
        #expect(!recorder.everMasked(toronto, maskId: "spinner"))
        #expect(!recorder.everMasked(paris))
        #expect(recorder.maskHistory(on: toronto).count == 2)
        #expect(recorder.maskOutcomes(on: toronto) == [.succeeded, .cancelled])
    }

    @Test func remembersTheDeepestStackOfAContainer() {
        let recorder = RecordingPresenter()
        let row = CityRow(presenter: recorder)
        for id in 1...3 { row.begin(ActivityID(rawValue: UInt64(id))) }
        for id in 1...3 { row.end(ActivityID(rawValue: UInt64(id)), outcome: .succeeded) }
        row.begin(ActivityID(rawValue: 4))
        #expect(recorder.maximumMaskDepth(on: row) == 3)
        #expect(recorder.masks(on: row).count == 1)
    }

    @Test func looksForTheMasksOfAScrollingLogOnTheRegionAroundIt() {
        let recorder = RecordingPresenter()
        let panel = Panel(title: "Events")
        let log = ScrollingLog(id: "events", in: panel, presenter: recorder)

        LogLoader(presenter: recorder, log: log).begin(ActivityID(rawValue: 1))

        #expect(recorder.masks(on: log).count == 1)
        #expect(recorder.masks(on: panel).count == 1)
        #expect(recorder.everMasked(log))
    }

    // MARK: - Log lines

    @Test func givesLogLinesInTheOrderAPersonReadsThem() {
        let recorder = RecordingPresenter()
        let panel = Panel(title: "Events")
        let log = ScrollingLog(id: "events", in: panel, presenter: recorder)
        let loader = LogLoader(presenter: recorder, log: log)

        log.append("one")
        loader.begin(ActivityID(rawValue: 1))
        log.append("two")
        log.append("three")
        #expect(recorder.logLines == ["one"])
        #expect(recorder.scene.heldLineCount == 2)

        loader.end(ActivityID(rawValue: 1), outcome: .succeeded)
        log.append("four")
        #expect(recorder.logLines == ["one", "two", "three", "four"])
    }

    // MARK: - Progress

    @Test func recordsEveryProgressValueOfABar() {
        let recorder = RecordingPresenter()
        let download = Download(presenter: recorder)
        let activity = ActivityID(rawValue: 1)
        let values = [Self.progress(0, of: 400), Self.progress(100, of: 400), Self.progress(400, of: 400)]

        download.progressBegan(activity)
        for value in values { download.progressChanged(activity, direction: .download, progress: value) }
        download.progressEnded(activity, outcome: .succeeded)

        #expect(recorder.progress(label: "radar.png") == values)
        #expect(recorder.finalFraction(label: "radar.png") == 1)
        #expect(recorder.transferOutcomes(label: "radar.png") == [.succeeded])
        #expect(recorder.progress(label: "forecast.json").isEmpty)
    }

    @Test func hasNoFinalFractionForATransferOfUnknownSize() {
        let recorder = RecordingPresenter()
        let download = Download(presenter: recorder)
        let activity = ActivityID(rawValue: 1)
        download.progressBegan(activity)
        download.progressChanged(activity, direction: .download, progress: Self.progress(512, of: nil))
        #expect(recorder.progress(label: "radar.png").count == 1)
        #expect(recorder.finalFraction(label: "radar.png") == nil)
    }

    @Test func ignoresProgressOfABarThatNeverBegan() {
        let recorder = RecordingPresenter()
        let download = Download(presenter: recorder)
        download.progressChanged(ActivityID(rawValue: 9), direction: .upload, progress: Self.progress(1, of: 2))
        #expect(recorder.progress(label: "radar.png").isEmpty)
    }

    // MARK: - Messages and retries

    @Test func sortsMessagesIntoWarningsAndInformations() {
        let recorder = RecordingPresenter()
        let row = CityRow(presenter: recorder)
        row.warn(BusinessError(code: 404, serverMessage: "Unknown city: Atlantis"))
        row.inform(EnvelopeHead(code: 200))
        Banner(presenter: recorder).warn(TransportError(.dnsFailure, message: "No such host."))

        #expect(recorder.messages.count == 3)
        #expect(recorder.warnings.map(\.text).first == "Unknown city: Atlantis")
        #expect(recorder.warnings.count == 2)
        #expect(recorder.informations.map(\.text) == ["Updated."])
        #expect(recorder.messages(in: row).count == 2)
    }

    @Test func listsRetryNoticesInOrder() {
        let recorder = RecordingPresenter()
        let row = CityRow(presenter: recorder)
        let first = RetryNotice(attempt: 2, reason: "HTTP 503")
        let second = RetryNotice(attempt: 3, reason: "connection reset")
        row.begin(ActivityID(rawValue: 1))
        row.maskRetrying(ActivityID(rawValue: 1), notice: first)
        row.maskRetrying(ActivityID(rawValue: 1), notice: second)
        #expect(recorder.retries == [first, second])
        #expect(recorder.scene.region(row.containerId)?.visibleMask?.retry == second)
    }

    // MARK: - Time

    @Test func timesSummariesWithTheClockItIsGiven() {
        let clock = ManualClock()
        let recorder = RecordingPresenter(clock: { clock.now })
        let row = CityRow(presenter: recorder)
        row.begin(ActivityID(rawValue: 1))
        clock.advance(by: .milliseconds(1500))
        row.end(ActivityID(rawValue: 1), outcome: .succeeded)
        guard case .maskSummary(_, _, let elapsed) = recorder.outputs.last else {
            Issue.record("expected a summary, got \(recorder.outputs)")
            return
        }
        #expect(elapsed == .milliseconds(1500))
    }
}
