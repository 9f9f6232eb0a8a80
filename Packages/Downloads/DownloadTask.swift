public import Transport

/// One download of a ``DownloadManager``, made before it starts: chain its callbacks, then
/// ``download()`` queues it.
///
/// ```swift
/// let task = try manager.task(for: "https://example.com/big.iso", to: "big.iso")
///     .progress { print($0.completed, $0.total ?? -1) }
///     .state { print("now", $0) }
///     .response { result in print(result) }
/// task.download()                      // queued; runs when the manager has a slot
/// let summary = try await task.value   // or await it, as any handle
/// ```
///
/// - ``progress(_:)`` handlers get the bytes on disk (the resumed ones included), the total
///   when known and the rate; ``state(_:)`` handlers each state in order: `.queued` (made, or
///   waiting for a slot), `.running`, `.suspended`, `.completed`, `.failed`, `.cancelled`;
///   ``response(_:)`` handlers the summary of the file or the error. Any number of each, in
///   the order added, all on the task's ``executor`` when it has one. A handler added late
///   gets the current state, the latest progress, or the outcome at once.
/// - ``value`` and ``result`` await the outcome, mixed freely with the handlers.
/// - ``suspend()`` stops the download and keeps its partial file, ``resume()`` queues it again
///   (also after a failure) and it continues from the partial, ``cancel()`` stops it and
///   deletes the partial. The manager does the same for all its tasks at once.
///
/// The outcome is a ``DownloadRequest``, ``request``: ``response(_:)``, ``value`` and
/// ``result`` are its `completion`, `value` and `result`, so a task's outcome reaches its
/// handlers as every request handle's does. A failed task that is resumed runs the handle
/// again (as `reload()` does): each outcome goes to the response handlers once.
public final class DownloadTask: Sendable {
    /// The task's identifier in its manager; number 0 for a task that failed before it had one.
    public let id: DownloadManager.TaskID
    /// The manager that runs the task; `nil` for a task that failed before it had one.
    public let manager: DownloadManager?
    /// The absolute path the file goes to.
    public let destination: String
    /// The handle of the task's outcome: its value is the summary of the finished file.
    public let request: DownloadRequest
    let core: DownloadTaskCore

    /// A task of `manager`, which has registered it as `id`.
    init(id: DownloadManager.TaskID, manager: DownloadManager, destination: String, core: DownloadTaskCore) {
        self.id = id
        self.manager = manager
        self.destination = destination
        self.core = core
        request = RequestHandle(
            startImmediately: false, executor: core.executor, runsInAwaitingTask: true,
            operation: { _ in .init(value: try await core.nextOutcome(), response: nil) })
        request.onCancel { [id, manager, core] in
            core.markCancelled()
            manager.submit(.cancel(id))
        }
        // Registered first, so it runs before the caller's handlers: a failed download resumed
        // before its handle handed the failure out gets a new run, for the next outcome.
        request.completion { [weak request, core] result in
            if case .failure = result, core.runsAgain { request?.reload() }
        }
        core.setRequest(rerun: { [weak request] in request?.reload() }, cancel: { [weak request] in request?.cancel() })
    }

    /// A task that has failed before it could be queued (no manager is installed, no client is
    /// configured): its state is `.failed` and its outcome `error`.
    ///
    /// - Parameters:
    ///   - error: Why the task cannot run.
    ///   - destination: Where the file would have gone.
    ///   - executor: Where its handlers run.
    package init(failed error: any Error, destination: String, executor: HandlerExecutor?) {
        id = DownloadManager.TaskID(number: 0)
        manager = nil
        self.destination = destination
        let failure = error as? TransportError ?? TransportError(wrapping: error, url: nil)
        core = DownloadTaskCore(state: .failed(failure), url: destination, executor: executor)
        request = RequestHandle(finished: .failure(error))
    }

    /// Where the handlers run; `nil` for the thread that reports the change.
    public var executor: HandlerExecutor? { core.executor }

    /// The task's state now.
    public var currentState: FileDownload.State { core.state }

    /// The latest progress event, `nil` before the first.
    public var currentProgress: TransferProgress? { core.progress }

    // MARK: - Controlling

    /// Queues the task in its manager; it runs when a slot is free. Does nothing for a task
    /// that was started, or cancelled, already.
    ///
    /// - Returns: This task.
    @discardableResult
    public func download() -> Self {
        guard let manager else { return self }
        manager.submit(.start(id))
        request.start()
        return self
    }

    /// Stops the task and keeps its partial file, freeing its slot; ``resume()`` continues
    /// from it. Does nothing unless the task is queued (after ``download()``) or running.
    public func suspend() {
        manager?.submit(.suspend(id))
    }

    /// Queues a suspended or failed task again; it continues from its partial file.
    ///
    /// For a failed task, ``value``, ``result`` and the ``response(_:)`` handlers are for the
    /// next outcome from now on: `await task.value` right after `resume()` waits for it.
    public func resume() {
        // At once, so that an await that follows is for the next outcome (the manager's
        // `failed` to `queued` runs the handle again too, which a run in progress ignores).
        if case .failed = core.state { request.reload() }
        manager?.submit(.resume(id))
    }

    /// Stops the task and deletes its partial file; its outcome is a ``/Transport/TransportError``
    /// of category `.cancelled`. Does nothing once it has completed.
    public func cancel() {
        core.markCancelled()
        manager?.submit(.cancel(id))
        request.cancel()
    }

    // MARK: - Callbacks

    /// Adds a progress handler: it gets every progress event from now on, in order, starting
    /// with the latest one when there is one.
    ///
    /// - Parameter handler: Gets the bytes on disk, the total when known and the rate.
    /// - Returns: This task.
    @discardableResult
    public func progress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        core.addProgressHandler(handler)
        return self
    }

    /// Adds a state handler: it gets the current state at once, then every change, in order.
    ///
    /// - Parameter handler: Gets each ``FileDownload/State``.
    /// - Returns: This task.
    @discardableResult
    public func state(_ handler: @escaping @Sendable (FileDownload.State) -> Void) -> Self {
        core.addStateHandler(handler)
        return self
    }

    /// Adds a handler for the outcome: the summary of the file at its destination, or the error
    /// (a ``/Transport/TransportError``: `.cancelled`, `.downloadFailed`, `.checksumMismatch`,
    /// the last network failure once retries are spent; for a task of a download form, also
    /// the client's errors). It runs once per outcome, at once when the task has one already.
    ///
    /// - Parameter handler: Gets the result.
    /// - Returns: This task.
    @discardableResult
    public func response(
        _ handler: @escaping @Sendable (Result<FileDownload.Summary, any Error>) -> Void
    ) -> Self {
        request.completion(handler)
        return self
    }

    // MARK: - Awaiting

    /// The summary once the file is at its destination; waits through suspensions, and throws
    /// the error of a failed or cancelled task. Cancelling the awaiting task cancels the task.
    public var value: FileDownload.Summary {
        get async throws { try await request.value }
    }

    /// The outcome, success or failure, as ``value`` waits for it.
    public var result: Result<FileDownload.Summary, any Error> {
        get async { await request.result }
    }
}
