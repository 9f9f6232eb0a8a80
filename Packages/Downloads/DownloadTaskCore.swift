import Transport

/// What a ``DownloadTask`` knows of its download: the state and progress its manager reports,
/// the outcomes its request handle waits for, and the `progress` and `state` handlers it hands
/// them to, in order.
///
/// The manager tells it every state change (on the manager's actor, in the order they happen)
/// and the download tells it every progress event (on the download's task); the handlers get
/// each in that order, one at a time, through the task's ``HandlerExecutor`` when it has one.
/// The outcomes are a request handle's business (``DownloadTask/request``): its operation waits
/// here, with ``nextOutcome()``, for the next `completed`, `failed` or `cancelled`.
final class DownloadTaskCore: Sendable {
    typealias Summary = FileDownload.Summary

    private struct Locked {
        var state: FileDownload.State
        var progress: TransferProgress?
        /// How many outcomes (`completed`, `failed`, `cancelled`) the download has had, and
        /// how many of them the handle's runs have taken.
        var outcomeCount = 0
        var outcomesTaken = 0
        var lastOutcome: Result<Summary, any Error>?
        /// The error the next `failed` state stands for, when it is not the state's own.
        var failure: (any Error)?
        /// Waits for the next outcome; `takes` when it is the handle's run.
        var waiters: [Int: (continuation: CheckedContinuation<Summary, any Error>, takes: Bool)] = [:]
        var nextWaiter = 0
        /// Whether the task was cancelled: a handle's run that ends then is not run again.
        var isCancelled = false
        /// Makes the handle run again, for a failed download that is resumed.
        var rerun: (@Sendable () -> Void)?
        /// Cancels the handle, for a download cancelled through its manager.
        var cancelRequest: (@Sendable () -> Void)?
        var stateHandlers: [@Sendable (FileDownload.State) -> Void] = []
        var progressHandlers: [@Sendable (TransferProgress) -> Void] = []
        /// Deliveries waiting for the thread that hands them out.
        var pending: [@Sendable () -> Void] = []
        var isDelivering = false
    }

    private let locked: PThreadMutex<Locked>
    /// Where the handlers run; `nil` for the thread that reports the change.
    let executor: HandlerExecutor?
    /// The download's URL, for messages.
    let url: String

    init(state: FileDownload.State = .queued, url: String, executor: HandlerExecutor?) {
        locked = PThreadMutex(Locked(state: state))
        self.url = url
        self.executor = executor
    }

    var state: FileDownload.State { locked.withLock { $0.state } }
    var progress: TransferProgress? { locked.withLock { $0.progress } }

    /// Sets what runs the task's handle again and what cancels it (it cannot exist before this
    /// core does).
    func setRequest(rerun: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
        locked.withLock { locked in
            locked.rerun = rerun
            locked.cancelRequest = cancel
        }
    }

    // MARK: - Reports

    /// Records the manager's new state for the task and hands it to the state handlers; an
    /// outcome also goes to the handle's waiting run.
    func set(_ state: FileDownload.State) {
        let (waiters, outcome, request) = locked.withLock { locked -> Transition in
            guard locked.state != state else { return ([], nil, nil) }
            let wasFailed = if case .failed = locked.state { true } else { false }
            locked.state = state
            let handlers = locked.stateHandlers
            locked.pending.append(contentsOf: handlers.map { handler in { @Sendable in handler(state) } })
            let outcome: Result<Summary, any Error>? =
                switch state {
                case .completed(let summary): .success(summary)
                case .failed(let error): .failure(locked.failure ?? error)
                case .cancelled: .failure(cancelledError)
                default: nil
                }
            locked.failure = nil
            guard let outcome else {
                // A failed download queued again: its handle, which ended with the failure,
                // waits for the next outcome.
                return ([], nil, wasFailed && state == .queued ? locked.rerun : nil)
            }
            locked.outcomeCount += 1
            locked.lastOutcome = outcome
            if locked.waiters.values.contains(where: \.takes) { locked.outcomesTaken = locked.outcomeCount }
            let waiters = locked.waiters.values.map(\.continuation)
            locked.waiters = [:]
            // A task cancelled through its manager (`cancelAll()`) may never have started its
            // handle: cancelling the handle ends it too (a finished one ignores it).
            return (waiters, outcome, state == .cancelled ? locked.cancelRequest : nil)
        }
        deliver()
        if let outcome { for waiter in waiters { waiter.resume(with: outcome) } }
        request?()
    }

    private typealias Transition = (
        waiters: [CheckedContinuation<Summary, any Error>], outcome: Result<Summary, any Error>?,
        request: (@Sendable () -> Void)?
    )

    /// Keeps the error a run failed with for the `failed` state that follows, whose own error
    /// is a ``/Transport/TransportError``: the task's response gets the error itself.
    func recordFailure(_ error: any Error) {
        locked.withLock { $0.failure = error }
    }

    /// Records a progress event and hands it to the progress handlers.
    func report(_ progress: TransferProgress) {
        locked.withLock { locked in
            locked.progress = progress
            let handlers = locked.progressHandlers
            locked.pending.append(contentsOf: handlers.map { handler in { @Sendable in handler(progress) } })
        }
        deliver()
    }

    // MARK: - Handlers

    /// Adds a state handler; it gets the current state first.
    func addStateHandler(_ handler: @escaping @Sendable (FileDownload.State) -> Void) {
        let deliver = onExecutor(handler)
        locked.withLock { locked in
            locked.stateHandlers.append(deliver)
            let state = locked.state
            locked.pending.append { deliver(state) }
        }
        self.deliver()
    }

    /// Adds a progress handler; it gets the latest progress first, when there is one.
    func addProgressHandler(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        let deliver = onExecutor(handler)
        locked.withLock { locked in
            locked.progressHandlers.append(deliver)
            if let progress = locked.progress { locked.pending.append { deliver(progress) } }
        }
        self.deliver()
    }

    private func onExecutor<T: Sendable>(
        _ handler: @escaping @Sendable (T) -> Void
    ) -> @Sendable (T) -> Void {
        guard let executor else { return handler }
        return { value in executor.execute { handler(value) } }
    }

    /// Hands the pending deliveries out, one at a time and in order, unless another thread is
    /// doing it already (it takes these too); never under the lock.
    private func deliver() {
        var batch: [@Sendable () -> Void] = locked.withLock { locked in
            guard !locked.isDelivering, !locked.pending.isEmpty else { return [] }
            locked.isDelivering = true
            defer { locked.pending = [] }
            return locked.pending
        }
        while !batch.isEmpty {
            for job in batch { job() }
            batch = locked.withLock { locked in
                if locked.pending.isEmpty { locked.isDelivering = false }
                defer { locked.pending = [] }
                return locked.pending
            }
        }
    }

    // MARK: - Outcomes

    /// Marks the task cancelled, so that the handle's run ending now is not run again.
    func markCancelled() {
        locked.withLock { $0.isCancelled = true }
    }

    /// Whether a handle's run that just ended with a failure should run again: the download
    /// was resumed after it failed, before the handle had handed the failure out.
    var runsAgain: Bool {
        locked.withLock { locked in
            guard !locked.isCancelled else { return false }
            switch locked.state {
            case .queued, .running, .suspended: return locked.outcomeCount == locked.outcomesTaken
            default: return false
            }
        }
    }

    /// The download's next outcome the handle has not taken: waits through suspensions, and
    /// returns at once when one is waiting (or the download is over).
    func nextOutcome() async throws -> Summary {
        try await wait(takes: true) { locked in
            locked.outcomeCount > locked.outcomesTaken || locked.state.isFinal
        }
    }

    /// The outcome the state stands for now (completed, failed or cancelled), or else the next
    /// one, through suspensions; takes nothing from the handle.
    func outcome() async throws -> Summary {
        try await wait(takes: false) { locked in
            switch locked.state {
            case .completed, .failed, .cancelled: true
            default: false
            }
        }
    }

    private func wait(takes: Bool, immediately: @escaping @Sendable (Locked) -> Bool) async throws -> Summary {
        let id: Int = locked.withLock { locked in
            defer { locked.nextWaiter += 1 }
            return locked.nextWaiter
        }
        return try await RequestCancellation.withCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now: Result<Summary, any Error>? = locked.withLock { locked in
                    if let outcome = locked.lastOutcome, immediately(locked) {
                        if takes { locked.outcomesTaken = locked.outcomeCount }
                        return outcome
                    }
                    if RequestCancellation.isCancelled { return .failure(waitCancelledError) }
                    locked.waiters[id] = (continuation, takes)
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = locked.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: waitCancelledError)
        }
    }

    private var cancelledError: TransportError {
        TransportError(
            .cancelled, message: "The download of \(url) was cancelled; its partial file is deleted.", url: url)
    }

    private var waitCancelledError: TransportError {
        TransportError(.cancelled, message: "The download of \(url) was cancelled.", url: url)
    }
}
