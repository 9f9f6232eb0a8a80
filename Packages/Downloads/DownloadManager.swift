import HTTPTypes
public import Transport

/// Runs many ``FileDownload``s, a few at a time, and lets each be suspended, resumed or
/// cancelled by its identifier.
///
/// Downloads wait in order of ``enqueue(_:to:options:)`` until one of the
/// ``maximumConcurrentDownloads`` slots is free. Each task's state is one of
/// ``FileDownload/State``: `.queued` (waiting for a slot), `.running`, `.suspended`,
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

    private struct Record {
        let download: FileDownload
        var state: FileDownload.State = .queued
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
    private var lastNumber = 0
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
        lastNumber += 1
        let id = TaskID(number: lastNumber)
        let download = FileDownload(request: request, to: destination, transport: transport, options: options)
        records[id] = Record(download: download)
        changes.yield(StateChange(id: id, state: .queued))
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
        records[id]?.state
    }

    /// Every task's state.
    public var states: [TaskID: FileDownload.State] {
        records.mapValues(\.state)
    }

    /// The download behind a task, for its ``FileDownload/progressUpdates`` and
    /// ``FileDownload/progress``; control it through the manager, not directly.
    public func download(_ id: TaskID) -> FileDownload? {
        records[id]?.download
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
        guard let download = records[id]?.download else {
            throw TransportError(.other, message: "No download \(id) in this manager.")
        }
        return try await download.value
    }

    /// Returns when no task is queued or running (suspended, failed, completed and cancelled
    /// tasks do not count).
    public func waitUntilIdle() async {
        guard !isIdle else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    // MARK: - Controlling

    /// Suspends a queued or running task, freeing its slot at once; its partial file is kept.
    public func suspend(_ id: TaskID) {
        guard let record = records[id], !record.isCancelling else { return }
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
        guard let record = records[id] else { return }
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
        guard let record = records[id], !record.state.isFinal, !record.isCancelling else { return }
        if running.contains(id) {
            records[id]?.isCancelling = true
            record.download.cancel()
            return
        }
        waiting.removeAll { $0 == id }
        record.download.cancel()
        setState(id, .cancelled)
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
            let download = record.download
            record.runTask = Task {
                let outcome: Result<FileDownload.Summary, any Error>
                do {
                    // The manager's own run: no request handle's cancellation is for it.
                    outcome = .success(try await RequestCancellation.withoutCurrent { try await download.run() })
                } catch {
                    outcome = .failure(error)
                }
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
            let failure =
                TransportError(
                    wrapping: error, url: record.download.request.url,
                    context: "The download of \(record.download.request.url) failed")
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
        if isIdle, !idleWaiters.isEmpty {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}
