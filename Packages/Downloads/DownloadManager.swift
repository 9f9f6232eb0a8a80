import HTTPTypes
public import Transport

/// Runs many ``FileDownload``s, a few at a time, and lets each be suspended, resumed or
/// cancelled by its identifier.
///
/// Downloads wait in order of ``enqueue(_:to:options:)`` (or of ``DownloadTask/download()``)
/// until one of the ``maximumConcurrentDownloads`` slots is free. Each task's state is one of
/// ``FileDownload/State``: `.queued` (made, or waiting for a slot), `.running`, `.suspended`,
/// `.completed`, `.failed` or `.cancelled`; read it with ``state(of:)`` or follow every change
/// of every task with ``stateChanges``.
///
/// ```swift
/// let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 2)
/// Task { for await change in manager.stateChanges { print(change.id, change.state) } }
/// for (index, url) in urls.enumerated() {
///     try await manager.enqueue(url: url, to: "file-\(index).bin")
/// }
/// await manager.waitUntilIdle()
/// ```
///
/// ``task(for:to:options:executor:)-(String,_,_,_)`` makes a ``DownloadTask`` without starting
/// it, to chain its `progress`, `state` and `response` callbacks on before its `download()`;
/// ``download(url:to:options:executor:)`` makes one and queues it at once. ``suspendAll()``,
/// ``resumeAll()`` and ``cancelAll()`` act on every task. ``DownloadSystem`` installs one
/// manager for the whole process.
///
/// A suspended task frees its slot at once and keeps its partial file; ``resume(_:)`` queues it
/// again, and it continues from the bytes on disk. A failed task keeps its partial too and may
/// be resumed the same way. ``cancel(_:)`` deletes the partial. Because every download resumes
/// from disk, a manager created after a crash that enqueues the same URLs and destinations
/// continues where the old one stopped.
public actor DownloadManager {
    /// Identifies a task of one manager.
    public struct TaskID: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The task's number, from 1 in order of enqueueing.
        public let number: Int

        /// Orders by enqueueing.
        public static func < (lhs: TaskID, rhs: TaskID) -> Bool { lhs.number < rhs.number }

        /// `#N`.
        public var description: String { "#\(number)" }
    }

    /// One task's new state.
    public struct StateChange: Sendable, Hashable {
        /// The task.
        public var id: TaskID
        /// Its new state.
        public var state: FileDownload.State

        /// Creates a change.
        public init(id: TaskID, state: FileDownload.State) {
            self.id = id
            self.state = state
        }
    }

    struct Record: Sendable {
        /// The download; `nil` until a task made from a ``DownloadTaskSource`` first runs.
        var download: FileDownload?
        /// Makes the download of a task whose request is built when it runs.
        var source: DownloadTaskSource?
        /// What messages name: the URL, or the source's name before its request is built.
        var name: String
        /// The absolute path the file goes to.
        var destination: String
        /// The task's own record of states and progress, when it was made as a ``DownloadTask``.
        var core: DownloadTaskCore?
        var state: FileDownload.State = .queued
        /// Whether the task was queued: a ``DownloadTask`` is not until its `download()`.
        var isStarted = true
        /// Counts the task's runs, so the end of a run that a suspend already replaced is ignored.
        var run = 0
        /// The task awaiting the run in progress; cancelling it suspends the download.
        var runTask: Task<Void, Never>?
        /// Whether a cancel is stopping the run in progress.
        var isCancelling = false
    }

    /// The transport every download goes through.
    public nonisolated let transport: any HTTPTransport
    /// How many downloads run at once: 3 by default, at least 1.
    public nonisolated let maximumConcurrentDownloads: Int

    private var records: [TaskID: Record] = [:]
    private var waiting: [TaskID] = []
    private var running: Set<TaskID> = []
    /// The last task number handed out; tasks are numbered outside the actor, as they are made.
    private nonisolated let lastNumber = PThreadMutex(0)
    /// What tasks asked of the manager, in order, for the actor to apply (see ``submit(_:)``).
    private nonisolated let inbox = PThreadMutex<[Command]>([])
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private nonisolated let changes = Broadcast<StateChange>(bufferSize: 4096)

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - transport: The transport every download goes through.
    ///   - maximumConcurrentDownloads: How many run at once, 3 by default.
    public init(transport: any HTTPTransport, maximumConcurrentDownloads: Int = 3) {
        self.transport = transport
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
    }

    deinit {
        changes.finish()
    }

    // MARK: - Enqueueing

    /// Adds a download to the queue; it starts as soon as a slot is free.
    ///
    /// - Parameters:
    ///   - request: A `GET` request for the file.
    ///   - destination: Where the file goes; see ``FileDownload/init(request:to:transport:options:)``.
    ///   - options: The download's options, ``FileDownload/Options/init()`` by default.
    /// - Returns: The task's identifier.
    @discardableResult
    public func enqueue(
        _ request: TransportRequest,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options()
    ) -> TaskID {
        drainInbox()
        let id = nextID()
        let download = FileDownload(request: request, to: destination, transport: transport, options: options)
        register(id, Record(download: download, name: request.url, destination: download.destination))
        waiting.append(id)
        fillSlots()
        return id
    }

    /// Adds a download of `url` to the queue.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: Where the file goes.
    ///   - options: The download's options.
    /// - Returns: The task's identifier.
    /// - Throws: ``/Transport/TransportError`` with category `.invalidURL` for a URL
    ///   ``/Transport/TransportRequest`` refuses.
    @discardableResult
    public func enqueue(
        url: String,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options()
    ) throws -> TaskID {
        enqueue(try TransportRequest(method: .get, url: url), to: destination, options: options)
    }

    // MARK: - Observing

    /// The task's state, or `nil` for an identifier this manager did not hand out.
    public func state(of id: TaskID) -> FileDownload.State? {
        drainInbox()
        return records[id]?.state
    }

    /// Every task's state.
    public var states: [TaskID: FileDownload.State] {
        drainInbox()
        return records.mapValues(\.state)
    }

    /// The download behind a task, for its ``FileDownload/progressUpdates`` and
    /// ``FileDownload/progress``; control it through the manager, not directly. `nil` for a
    /// task of a download form that has not run yet (its request is built when it runs).
    public func download(_ id: TaskID) -> FileDownload? {
        drainInbox()
        return records[id]?.download
    }

    /// Every state change of every task from now on, in the order they happen: each task's
    /// `.queued` when enqueued, then each change. Each access is an independent subscription;
    /// it ends when the manager is deinitialised.
    public nonisolated var stateChanges: AsyncStream<StateChange> {
        changes.subscribe()
    }

    /// Waits for the task's outcome, through suspensions.
    ///
    /// This is the download's own outcome (``FileDownload/value``); the task's state in the
    /// manager and its ``stateChanges`` entry follow a moment later, once the manager has
    /// recorded the end of the run and refilled its slot.
    ///
    /// - Returns: The summary once the file is at its destination.
    /// - Throws: The error of a failed run, `.cancelled` after ``cancel(_:)``, and
    ///   ``/Transport/TransportError`` with category `.other` for an unknown identifier.
    public func value(of id: TaskID) async throws -> FileDownload.Summary {
        drainInbox()
        guard let record = records[id] else {
            throw TransportError(.other, message: "No download \(id) in this manager.")
        }
        if let download = record.download { return try await download.value }
        // A task of a download form before its first run.
        guard let core = record.core else {
            throw TransportError(.other, message: "No download \(id) in this manager.")
        }
        return try await core.outcome()
    }

    /// Returns when no task is queued or running (suspended, failed, completed and cancelled
    /// tasks do not count).
    public func waitUntilIdle() async {
        drainInbox()
        guard !isIdle else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    // MARK: - Controlling

    /// Suspends a queued or running task, freeing its slot at once; its partial file is kept.
    public func suspend(_ id: TaskID) {
        drainInbox()
        applySuspend(id)
    }

    private func applySuspend(_ id: TaskID) {
        guard let record = records[id], record.isStarted, !record.isCancelling else { return }
        switch record.state {
        case .queued:
            waiting.removeAll { $0 == id }
            setState(id, .suspended)
        case .running:
            running.remove(id)
            // Cancelling the task awaiting `run()` suspends the download (see FileDownload.run()).
            record.runTask?.cancel()
            records[id]?.runTask = nil
            setState(id, .suspended)
            fillSlots()
        default:
            break
        }
    }

    /// Queues a suspended or failed task again; it continues from the bytes on disk.
    public func resume(_ id: TaskID) {
        drainInbox()
        applyResume(id)
    }

    private func applyResume(_ id: TaskID) {
        guard let record = records[id], record.isStarted else { return }
        switch record.state {
        case .suspended, .failed:
            waiting.append(id)
            setState(id, .queued)
            fillSlots()
        default:
            break
        }
    }

    /// Cancels a task that has not completed and deletes its partial file.
    ///
    /// A running task reports `.cancelled` once its transfer has stopped and the files are
    /// gone, within milliseconds; a queued, suspended or failed one at once.
    public func cancel(_ id: TaskID) {
        drainInbox()
        applyCancel(id)
    }

    private func applyCancel(_ id: TaskID) {
        guard let record = records[id], !record.state.isFinal, !record.isCancelling else { return }
        record.core?.markCancelled()
        if running.contains(id) {
            records[id]?.isCancelling = true
            if let download = record.download {
                download.cancel()
            } else {
                // Still building its request: stopping that ends the run.
                record.runTask?.cancel()
            }
            return
        }
        waiting.removeAll { $0 == id }
        record.download?.cancel()
        setState(id, .cancelled)
    }

    /// Suspends every queued or running task (see ``suspend(_:)``), in the order they were made.
    public func suspendAll() {
        drainInbox()
        for id in records.keys.sorted() { applySuspend(id) }
    }

    /// Queues every suspended or failed task again (see ``resume(_:)``), in the order they were
    /// made.
    public func resumeAll() {
        drainInbox()
        for id in records.keys.sorted() { applyResume(id) }
    }

    /// Cancels every task that has not completed, started or not, and deletes their partial
    /// files (see ``cancel(_:)``).
    public func cancelAll() {
        drainInbox()
        for id in records.keys.sorted() { applyCancel(id) }
    }

    // MARK: - Tasks

    /// Makes a task for `request`, not started: add its handlers, then call its
    /// ``DownloadTask/download()``.
    ///
    /// - Parameters:
    ///   - request: A `GET` request for the file.
    ///   - destination: Where the file goes; see ``FileDownload/init(request:to:transport:options:)``.
    ///   - options: The download's options, ``FileDownload/Options/init()`` by default; its
    ///     `progressHandler` runs as well as the task's ``DownloadTask/progress(_:)`` handlers.
    ///   - executor: Where the task's handlers run; the thread that reports each change by
    ///     default.
    /// - Returns: The task, `.queued` but not in the queue until its ``DownloadTask/download()``.
    public nonisolated func task(
        for request: TransportRequest,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options(),
        executor: HandlerExecutor? = nil
    ) -> DownloadTask {
        let core = DownloadTaskCore(url: request.url, executor: executor)
        let download = FileDownload(
            request: request, to: destination, transport: transport, options: Self.reporting(to: core, options))
        let record = Record(
            download: download, name: request.url, destination: download.destination, core: core, isStarted: false)
        return makeTask(record, core: core)
    }

    /// Makes a task for `url`, not started: add its handlers, then call its
    /// ``DownloadTask/download()``.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: Where the file goes.
    ///   - options: The download's options.
    ///   - executor: Where the task's handlers run.
    /// - Returns: The task, not started.
    /// - Throws: ``/Transport/TransportError`` with category `.invalidURL` for a URL
    ///   ``/Transport/TransportRequest`` refuses.
    public nonisolated func task(
        for url: String,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options(),
        executor: HandlerExecutor? = nil
    ) throws -> DownloadTask {
        task(for: try TransportRequest(method: .get, url: url), to: destination, options: options, executor: executor)
    }

    /// Makes a task for `url` and queues it at once: ``task(for:to:options:executor:)-(String,_,_,_)``
    /// followed by ``DownloadTask/download()``. Handlers added right after still get every
    /// state from `.queued` on, and the outcome.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: Where the file goes.
    ///   - options: The download's options.
    ///   - executor: Where the task's handlers run.
    /// - Returns: The task, queued.
    /// - Throws: ``/Transport/TransportError`` with category `.invalidURL` for a URL
    ///   ``/Transport/TransportRequest`` refuses.
    @discardableResult
    public nonisolated func download(
        url: String,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options(),
        executor: HandlerExecutor? = nil
    ) throws -> DownloadTask {
        try task(for: url, to: destination, options: options, executor: executor).download()
    }

    /// Makes a task whose download `source` builds when the task first runs, not started.
    package nonisolated func task(
        from source: DownloadTaskSource, to destination: String, executor: HandlerExecutor?
    ) -> DownloadTask {
        let core = DownloadTaskCore(url: source.name, executor: executor)
        let record = Record(
            source: source, name: source.name, destination: FileDownload.absolutePath(of: destination), core: core,
            isStarted: false)
        return makeTask(record, core: core)
    }

    private nonisolated func makeTask(_ record: Record, core: DownloadTaskCore) -> DownloadTask {
        let id = nextID()
        submit(.register(id, record))
        return DownloadTask(id: id, manager: self, destination: record.destination, core: core)
    }

    /// `options` with a progress handler that also tells `core`.
    private static func reporting(to core: DownloadTaskCore, _ options: FileDownload.Options) -> FileDownload.Options {
        var options = options
        let handler = options.progressHandler
        options.progressHandler = { progress in
            core.report(progress)
            handler?(progress)
        }
        return options
    }

    /// The download of a task, made from its source on its first run.
    private func download(for id: TaskID) async throws -> FileDownload {
        guard let record = records[id] else { throw CancellationError() }
        if let download = record.download { return download }
        guard let source = record.source, let core = record.core else { throw CancellationError() }
        let prepared = try await source.prepare()
        try Task.checkCancellation()
        if let download = records[id]?.download { return download }
        let download = FileDownload(
            request: prepared.request, to: record.destination, transport: prepared.transport,
            options: Self.reporting(to: core, prepared.options))
        records[id]?.download = download
        records[id]?.name = prepared.request.url
        return download
    }

    // MARK: - Commands

    /// What a ``DownloadTask`` asks of its manager.
    enum Command: Sendable {
        case register(TaskID, Record)
        case start(TaskID)
        case suspend(TaskID)
        case resume(TaskID)
        case cancel(TaskID)
    }

    /// Queues a task's command for the actor, which applies the commands in the order they were
    /// submitted: before anything else a caller asks of it afterwards (every method applies
    /// the waiting ones first), or in a task launched for them.
    nonisolated func submit(_ command: Command) {
        inbox.withLock { $0.append(command) }
        Task { await self.drainInbox() }
    }

    private nonisolated func nextID() -> TaskID {
        TaskID(
            number: lastNumber.withLock { number in
                number += 1
                return number
            })
    }

    /// Applies the commands submitted so far, in order.
    private func drainInbox() {
        let commands = inbox.withLock { inbox in
            defer { inbox = [] }
            return inbox
        }
        for command in commands {
            switch command {
            case .register(let id, let record): register(id, record)
            case .start(let id): applyStart(id)
            case .suspend(let id): applySuspend(id)
            case .resume(let id): applyResume(id)
            case .cancel(let id): applyCancel(id)
            }
        }
    }

    /// Records a new task as `.queued`.
    private func register(_ id: TaskID, _ record: Record) {
        records[id] = record
        changes.yield(StateChange(id: id, state: .queued))
    }

    /// Queues a task made by `task(for:…)` that was not queued yet.
    private func applyStart(_ id: TaskID) {
        guard let record = records[id], !record.isStarted, record.state == .queued else { return }
        records[id]?.isStarted = true
        waiting.append(id)
        fillSlots()
    }

    // MARK: - Scheduling

    private var isIdle: Bool { waiting.isEmpty && running.isEmpty }

    /// Starts waiting tasks while slots are free.
    private func fillSlots() {
        while running.count < maximumConcurrentDownloads, !waiting.isEmpty {
            let id = waiting.removeFirst()
            guard var record = records[id] else { continue }
            record.run += 1
            let run = record.run
            let source = record.source
            record.runTask = Task {
                let outcome: Result<FileDownload.Summary, any Error>
                do {
                    let download = try await self.download(for: id)
                    // The manager's own run: no request handle's cancellation is for it.
                    outcome = .success(try await RequestCancellation.withoutCurrent { try await download.run() })
                } catch {
                    outcome = .failure(error)
                }
                await source?.finish(outcome)
                runEnded(id, run: run, outcome: outcome)
            }
            records[id] = record
            running.insert(id)
            setState(id, .running)
        }
    }

    /// Records the end of a task's run, unless a suspend or cancel already replaced it.
    private func runEnded(_ id: TaskID, run: Int, outcome: Result<FileDownload.Summary, any Error>) {
        guard let record = records[id], record.run == run, running.contains(id) else { return }
        running.remove(id)
        records[id]?.runTask = nil
        records[id]?.isCancelling = false
        switch outcome {
        case .success(let summary):
            setState(id, .completed(summary))
        case .failure where record.isCancelling:
            setState(id, .cancelled)
        case .failure(let error):
            let url = record.download?.request.url
            let failure = TransportError(wrapping: error, url: url, context: "The download of \(record.name) failed")
            // The task's response gets the error itself (a client's error for a form's task).
            record.core?.recordFailure(error)
            setState(id, .failed(failure))
        }
        fillSlots()
    }

    /// Records and publishes a task's new state; wakes ``waitUntilIdle()`` when nothing is
    /// queued or running any more.
    private func setState(_ id: TaskID, _ state: FileDownload.State) {
        guard let current = records[id]?.state, current != state else { return }
        records[id]?.state = state
        changes.yield(StateChange(id: id, state: state))
        records[id]?.core?.set(state)
        if isIdle, !idleWaiters.isEmpty {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}
