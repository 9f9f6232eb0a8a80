public import Feedback
public import Transport

/// A presenter that draws nothing and remembers everything: the test double for code that
/// shows feedback.
///
/// It records every ``/Feedback/FeedbackEvent`` in the order it was presented, and keeps what
/// is live (masks stacked per container, transfers, held log lines) as a console would. Its
/// queries read like the sentences a feature test asserts: which masks are on a container
/// now, whether one was ever there, how deep they stacked, what a progress bar went through,
/// which warnings a person read.
///
/// Give it to the type under test by overriding `presenter`, rather than bootstrapping
/// ``/Feedback/FeedbackSystem``: tests run in parallel, and the system's presenter is one for
/// the whole process.
///
/// ```swift
/// struct ForecastPanel: Containable, Loadable, Warnable {
///     let presenter: any FeedbackPresenter
/// }
/// let recorder = RecordingPresenter()
/// let panel = ForecastPanel(presenter: recorder)
/// _ = try? await api.forecast(city: "Atlantis").load(panel).warn(panel).value
/// #expect(recorder.everMasked(panel))
/// #expect(recorder.masks(on: panel).isEmpty)
/// #expect(recorder.warnings.map(\.text) == ["Unknown city: Atlantis"])
/// ```
///
/// Everything is synchronous: a handle runs the handlers its Feedback chain added before
/// `await handle.value` returns, so the recorder holds the whole story by then, and a test
/// needs no polling. The presenter is safe to call from any thread; its state sits behind a
/// lock, and each query returns a snapshot.
public final class RecordingPresenter: FeedbackPresenter, Sendable {
    /// What the recorder knows, behind one lock.
    private struct State: Sendable {
        var events: [FeedbackEvent] = []
        var outputs: [FeedbackScene.Output] = []
        var scene = FeedbackScene()
        /// The deepest stack seen, by container identifier.
        var maximumDepths: [String: Int] = [:]
        /// Every mask placed, by container identifier, in order.
        var placements: [String: [MaskPlacement]] = [:]
        /// The label of every bar that began, by activity.
        var labels: [ActivityID: String] = [:]
        /// Every progress value, by the label of its bar, in order.
        var progress: [String: [TransferProgress]] = [:]
    }

    private let state = PThreadMutex(State())
    private let clock: @Sendable () -> Duration

    /// Creates a recorder that has recorded nothing.
    public convenience init() {
        self.init(clock: nil)
    }

    /// Creates a recorder with a clock of its own, for the package's tests of elapsed times.
    ///
    /// - Parameter clock: The time of each event, for the elapsed times in the scene's
    ///   summaries; must never go back and must not call the recorder. The time since the
    ///   recorder was created, on the continuous clock, when `nil`.
    package init(clock: (@Sendable () -> Duration)?) {
        if let clock {
            self.clock = clock
        } else {
            let start = ContinuousClock.now
            self.clock = { ContinuousClock.now - start }
        }
    }

    // MARK: - Presenting

    /// Records `event`, applies it to what is live and records what would be printed for good.
    ///
    /// - Parameter event: The event, from any thread.
    public func present(_ event: FeedbackEvent) {
        state.withLock { state in
            // The clock is read under the lock so that times grow in the order events arrive.
            let now = clock()
            state.events.append(event)
            state.outputs += state.scene.apply(event, at: now)
            switch event {
            case .maskBegan(let placement):
                let id = placement.container.id
                state.placements[id, default: []].append(placement)
                let depth = state.scene.region(id)?.masks.count ?? 0
                state.maximumDepths[id] = max(state.maximumDepths[id] ?? 0, depth)
            case .progressBegan(let activity, let label, _):
                state.labels[activity] = label
            case .progressChanged(let activity, _, let progress):
                guard let label = state.labels[activity] else { break }
                state.progress[label, default: []].append(progress)
            default:
                break
            }
        }
    }

    /// Forgets everything: the events, the outputs and the scene.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    // MARK: - What happened

    /// Every event presented so far, in order.
    public var events: [FeedbackEvent] { state.withLock { $0.events } }

    /// Everything the scene printed for good so far (messages, log lines, retry notices,
    /// summaries), in order: for the package's own tests.
    package var outputs: [FeedbackScene.Output] { state.withLock { $0.outputs } }

    /// The scene as it is now, the masked regions and the running transfers: for the package's
    /// own tests.
    package var scene: FeedbackScene { state.withLock { $0.scene } }

    /// Whether nothing is live: no mask on any container, no transfer running.
    public var isClear: Bool { scene.isEmpty }

    // MARK: - Messages

    /// Every warning and information presented, in order.
    public var messages: [FeedbackMessage] {
        events.compactMap { event in
            if case .message(let message, _) = event { return message }
            return nil
        }
    }

    /// The warnings presented, in order.
    public var warnings: [FeedbackMessage] { messages.filter { $0.severity == .warning } }

    /// The informations presented, in order.
    public var informations: [FeedbackMessage] { messages.filter { $0.severity == .information } }

    /// The messages presented in `container`, in order.
    ///
    /// - Parameter container: The container the messages were shown in.
    /// - Returns: Warnings and informations alike; those shown in no container are left out.
    public func messages(in container: some Containable) -> [FeedbackMessage] {
        let id = container.containerId
        return events.compactMap { event in
            if case .message(let message, let info) = event, info?.id == id { return message }
            return nil
        }
    }

    // MARK: - Masks

    /// The masks on `container` now, oldest first; the last is the one shown.
    ///
    /// For a scrolling log, the masks on the region its masks go to (its
    /// `maskTarget`): a mask never covers scrolling lines.
    ///
    /// - Parameter container: The container.
    /// - Returns: An empty array when the container is clear.
    public func masks(on container: some Containable) -> [MaskPlacement] {
        let id = Self.maskTargetId(container)
        return scene.region(id)?.masks.map(\.placement) ?? []
    }

    /// Whether a mask was ever put on `container`, even one that has ended since.
    ///
    /// - Parameters:
    ///   - container: The container (for a scrolling log, the region its masks go to counts).
    ///   - maskId: Only a mask with this ``/Feedback/Maskable/maskId`` counts; any mask when `nil`
    ///     (the default).
    /// - Returns: `true` when such a mask began on it.
    public func everMasked(_ container: some Containable, maskId: String? = nil) -> Bool {
        let id = Self.maskTargetId(container)
        let placements = state.withLock { $0.placements[id] ?? [] }
        return placements.contains { maskId == nil || $0.maskId == maskId }
    }

    /// Every mask that began on `container`, in order, ended or not.
    ///
    /// - Parameter container: The container (for a scrolling log, the region its masks go to).
    public func maskHistory(on container: some Containable) -> [MaskPlacement] {
        let id = Self.maskTargetId(container)
        return state.withLock { $0.placements[id] ?? [] }
    }

    /// The most masks `container` ever held at once: 2 when two requests overlapped on it,
    /// 0 when it was never masked.
    ///
    /// - Parameter container: The container (for a scrolling log, the region its masks go to).
    public func maximumMaskDepth(on container: some Containable) -> Int {
        let id = Self.maskTargetId(container)
        return state.withLock { $0.maximumDepths[id] ?? 0 }
    }

    /// How the masks that ended on `container` ended, in the order they ended.
    ///
    /// - Parameter container: The container (for a scrolling log, the region its masks go to).
    public func maskOutcomes(on container: some Containable) -> [ActivityOutcome] {
        let id = Self.maskTargetId(container)
        return outputs.compactMap { output in
            if case .maskSummary(let placement, let outcome, _) = output, placement.container.id == id {
                return outcome
            }
            return nil
        }
    }

    // MARK: - Progress

    /// Every progress value the bars labelled `label` received, in order.
    ///
    /// - Parameter label: The bar's label (``/Feedback/Progressable/progressLabel``).
    /// - Returns: An empty array when no such bar began or moved.
    public func progress(label: String) -> [TransferProgress] {
        state.withLock { $0.progress[label] ?? [] }
    }

    /// The fraction the last progress value of the bars labelled `label` reached: `1.0` for a
    /// finished transfer of known size.
    ///
    /// - Parameter label: The bar's label.
    /// - Returns: `nil` when there was no progress, or its total was unknown.
    public func finalFraction(label: String) -> Double? {
        progress(label: label).last?.fractionCompleted
    }

    /// How the transfers labelled `label` ended, in the order they ended.
    ///
    /// - Parameter label: The bar's label.
    public func transferOutcomes(label: String) -> [ActivityOutcome] {
        outputs.compactMap { output in
            if case .transferSummary(let transfer, let outcome, _) = output, transfer.label == label {
                return outcome
            }
            return nil
        }
    }

    // MARK: - Retries and logs

    /// Every retry notice presented, in order.
    ///
    /// A handle with both a mask and a bar presents each retry once for each, so a single
    /// retry appears twice.
    public var retries: [RetryNotice] {
        events.compactMap { event in
            if case .retrying(_, let notice) = event { return notice }
            return nil
        }
    }

    /// The lines of every scrolling log as a person would read them: in the order they were
    /// printed, which for lines held behind a mask is after the mask ended.
    ///
    /// Lines still held behind a mask are not among them.
    public var logLines: [String] {
        outputs.compactMap { output in
            if case .logLine(let line, _) = output { return line }
            return nil
        }
    }

    /// The identifier of the region a mask meant for `container` goes to.
    private static func maskTargetId(_ container: some Containable) -> String {
        container.maskTarget.containerId
    }
}
