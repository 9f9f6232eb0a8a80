import Foundation
import HTTPTypes
public import Transport

/// Downloads a URL to a file, and survives anything: dropped connections, a suspend, a
/// `kill -9`, a server that changes the file or ignores ranges.
///
/// The body streams to `DEST.partial` beside a small sidecar, `DEST.partial.json`, that records
/// the URL, the version's validator (a strong `ETag`, else a strong `Last-Modified`) and the
/// whole length. When the partial holds the whole file, and its SHA-256 is the expected one if
/// ``Options/expectedSHA256`` is set, it is renamed to `DEST` with `rename(2)` and the sidecar
/// is removed: `DEST` is never a partial file.
///
/// A new run, in the same process or in a new one after a crash, continues from the bytes on
/// disk with `Range: bytes=N-` and `If-Range: <validator>`. What the response means is decided
/// by ``ResumePoint``: a matching `206` is appended; a `200` (the file changed, or the server
/// ignores ranges) truncates the partial and starts again, never appends; a weak or missing
/// validator restarts from zero; a `416` for a partial that already holds the whole length is
/// success. Failures are retried by the download itself under the library's retry policy
/// (``Options/retry``), each retry resuming from the bytes on disk; an attempt that added bytes
/// resets the count of failures in a row.
///
/// ```swift
/// let download = try FileDownload(url: "https://example.com/big.iso", to: "big.iso", transport: transport)
/// Task { for await progress in download.progressUpdates { print(progress.completed) } }
/// let summary = try await download.run()
/// print(summary.destination, summary.byteCount)
/// ```
///
/// ## Control
///
/// ``start()`` begins in the background, ``suspend()`` stops and keeps the partial,
/// ``resume()`` continues (also after a failure), ``cancel()`` stops and deletes the partial.
/// Await ``value`` for the outcome, or call ``run()``, which starts and awaits in one step.
/// ``state`` and ``stateUpdates`` tell where the download is; ``progressUpdates`` and
/// ``Options/progressHandler`` report progress: bytes on disk (the resumed ones included),
/// the total when known, and the rate, at most 20 times a second, always ending with one
/// event whose `isFinal` is `true` on success.
///
/// ## Crash consistency
///
/// Invariant: the bytes of `DEST.partial` are a prefix of the version the sidecar names. Every
/// step keeps it, whichever system call a `kill -9` stops the process before:
///
/// - On start only the partial's size counts (never a count that could be stale); bytes with
///   no sidecar for this URL are truncated away, and bytes past the recorded length are cut.
/// - For a new version (a `200`), the partial is truncated to zero *before* the new sidecar
///   replaces the old one, and the sidecar is written to a temporary file and renamed, so it
///   is the old record or the new one; only then is the first byte appended. A crash in
///   between leaves an empty partial, which is a prefix of anything.
/// - Appends (`O_APPEND`) only add bytes that follow the ones on disk; a torn write still
///   leaves a prefix.
/// - `DEST` appears by one `rename(2)` of a complete, verified partial; the sidecar goes after.
///   A crash before its removal leaves a stale sidecar without a partial, and the next run
///   downloads again from zero.
///
/// The partial is locked (`flock`) while a run writes it, so two downloads to one destination,
/// in one process or two, cannot interleave; the kernel releases the lock of a killed process.
/// With ``Options/synchronizesToDisk`` (the default) each ordering point is also flushed with
/// `fsync`, so the argument holds across a power cut too.
///
/// File writes, and the SHA-256 of each chunk when a digest is expected, happen on the
/// download's task: writes go to the page cache and return at once. The flushes, and reading
/// back the bytes a resumed run starts from to hash them, run on a thread of their own.
public final class FileDownload: Sendable {
    /// The request to download; `GET` and its header fields, as the caller built it.
    public let request: TransportRequest
    /// The absolute path the file is renamed to when complete.
    public let destination: String
    /// Verification, retries, syncing and progress settings.
    public let options: Options
    private let transport: any HTTPTransport

    /// What ``suspend()`` or ``cancel()`` asked of the running run.
    private enum StopRequest {
        case suspend
        case cancel
    }

    private struct Control {
        var state: State = .queued
        /// The task of the run in progress, until its end is recorded.
        var runner: Task<Void, Never>?
        var stopRequest: StopRequest?
        /// A ``resume()`` arrived while a suspend was stopping the run.
        var resumesAfterStop = false
        var waiters: [Int: CheckedContinuation<Summary, any Error>] = [:]
        var nextWaiter = 0
        var progress: TransferProgress?
        /// Whether a run was ever launched: only the first may discard an earlier partial.
        var hasLaunched = false
        /// Resumed when the run in progress has ended (its files closed and unlocked).
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let control = PThreadMutex(Control())
    private let states = Broadcast<State>(bufferSize: 64)
    private let progressEvents = Broadcast<TransferProgress>(bufferSize: 64)

    /// Creates a download of `request` to `destination`; nothing happens until it is started.
    ///
    /// - Parameters:
    ///   - request: A `GET` request. Its `Range` and `If-Range` fields are replaced on every
    ///     attempt, and content decoding is turned off, so the file holds the bytes as served.
    ///   - destination: The file to create or replace; relative paths are resolved now,
    ///     against the current directory.
    ///   - transport: The transport the requests go through.
    ///   - options: ``Options/init()`` by default.
    public init(
        request: TransportRequest,
        to destination: String,
        transport: any HTTPTransport,
        options: Options = Options()
    ) {
        self.request = request
        self.destination = Self.absolutePath(of: destination)
        self.transport = transport
        self.options = options
    }

    /// Creates a download of `url` to `destination`; nothing happens until it is started.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: The file to create or replace.
    ///   - transport: The transport the requests go through.
    ///   - options: ``Options/init()`` by default.
    /// - Throws: ``/Transport/TransportError`` with category
    ///   ``/Transport/ErrorCategory/invalidURL`` for a URL that
    ///   ``/Transport/TransportRequest`` refuses.
    public convenience init(
        url: String,
        to destination: String,
        transport: any HTTPTransport,
        options: Options = Options()
    ) throws {
        self.init(
            request: try TransportRequest(method: .get, url: url), to: destination, transport: transport,
            options: options)
    }

    /// `path` resolved against the current directory and standardized, as ``destination`` is.
    static func absolutePath(of path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// `DEST.partial`, where the bytes go until the file is complete.
    public var partialPath: String { PartialFile.partialPath(of: destination) }

    /// `DEST.partial.json`, the sidecar describing the partial.
    public var sidecarPath: String { PartialFile.sidecarPath(of: destination) }

    // MARK: - Observing

    /// Where the download is now.
    public var state: State { control.withLock { $0.state } }

    /// The latest progress event, `nil` before the first.
    public var progress: TransferProgress? { control.withLock { $0.progress } }

    /// The current state, then every change, in order; ends after `.completed` or `.cancelled`.
    ///
    /// Each access is an independent subscription. `.failed` does not end it, because a
    /// failed download may be resumed.
    public var stateUpdates: AsyncStream<State> {
        control.withLock { control in states.subscribe(startingWith: control.state) }
    }

    /// Progress events from now on (the latest one first, when there is one); ends when the
    /// download completes or is cancelled.
    ///
    /// Bytes only go down when the server forces a restart (a `200`, or a range that does not
    /// fit). Each access is an independent subscription; a slow reader loses the oldest of
    /// more than 64 unread events, never the final one.
    public var progressUpdates: AsyncStream<TransferProgress> {
        control.withLock { control in progressEvents.subscribe(startingWith: control.progress) }
    }

    // MARK: - Controlling

    /// Starts the download in the background; does nothing unless it is queued.
    public func start() {
        control.withLock { control in
            guard case .queued = control.state, control.runner == nil else { return }
            launch(&control)
        }
    }

    /// Continues a queued, suspended or failed download from the bytes on disk; does nothing
    /// when it is running, completed or cancelled.
    public func resume() {
        control.withLock { control in
            if control.runner != nil {
                if control.stopRequest == .suspend { control.resumesAfterStop = true }
                return
            }
            switch control.state {
            case .queued, .suspended, .failed: launch(&control)
            default: break
            }
        }
    }

    /// Stops the download and keeps the partial and its sidecar for a later ``resume()``.
    ///
    /// The state becomes `.suspended` once the transfer has stopped, within milliseconds.
    /// A queued or failed download becomes suspended at once.
    public func suspend() {
        control.withLock { control in
            if let runner = control.runner {
                control.resumesAfterStop = false
                guard control.stopRequest == nil else { return }
                control.stopRequest = .suspend
                runner.cancel()
                return
            }
            switch control.state {
            case .queued, .failed: transition(&control, to: .suspended)
            default: break
            }
        }
    }

    /// Stops the download and deletes the partial and its sidecar; awaiting ``value`` then
    /// throws `.cancelled`. Does nothing once the download has completed.
    ///
    /// The state becomes `.cancelled` once the files are gone, within milliseconds.
    public func cancel() {
        let finished: Bool = control.withLock { control in
            if let runner = control.runner {
                control.resumesAfterStop = false
                control.stopRequest = .cancel
                runner.cancel()
                return false
            }
            guard !control.state.isFinal else { return false }
            PartialFile.removeArtifacts(of: destination)
            end(&control, in: .cancelled, result: .failure(DownloadRun.cancelledError(url: request.url)))
            return true
        }
        if finished { finishStreams() }
    }

    // MARK: - Awaiting

    /// The outcome: the summary once the file is at its destination.
    ///
    /// Waits through suspensions. Throws the error of a failed run (a later ``resume()``
    /// starts a new outcome to wait for), `.cancelled` after ``cancel()``, or `.cancelled` when
    /// the awaiting task is cancelled (the download itself goes on).
    public var value: Summary {
        get async throws {
            let id: Int = control.withLock { control in
                defer { control.nextWaiter += 1 }
                return control.nextWaiter
            }
            return try await RequestCancellation.withCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let immediate: Result<Summary, any Error>? = control.withLock { control in
                        switch control.state {
                        case .completed(let summary): return .success(summary)
                        case .cancelled: return .failure(DownloadRun.cancelledError(url: request.url))
                        case .failed(let error) where control.runner == nil: return .failure(error)
                        default: break
                        }
                        if RequestCancellation.isCancelled { return .failure(waitCancelledError()) }
                        control.waiters[id] = continuation
                        return nil
                    }
                    if let immediate { continuation.resume(with: immediate) }
                }
            } onCancel: {
                let waiter = control.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume(throwing: waitCancelledError())
            }
        }
    }

    /// Starts (or resumes) the download and waits for its outcome.
    ///
    /// Cancelling the calling task suspends the download, keeping the partial for a later run,
    /// and throws `.cancelled` once the run has stopped writing and released the partial, so
    /// a download started right after it can take the partial over at once.
    ///
    /// - Returns: The summary once the file is at its destination (also when the last bytes
    ///   arrived as the task was cancelled).
    /// - Throws: ``/Transport/TransportError``: the last failure once retries are spent,
    ///   `.retryBudgetExhausted`, `.retryAfterTooLong` or `.deadlineExceeded` when the retry
    ///   policy stopped them early, `.checksumMismatch`, `.downloadFailed`, or `.cancelled`.
    @discardableResult
    public func run() async throws -> Summary {
        resume()
        do {
            // The task's cancellation, or the cancel of a request handle whose operation runs
            // this download in the task, suspends it.
            return try await RequestCancellation.withCancellationHandler {
                try await value
            } onCancel: {
                suspend()
            }
        } catch let error as TransportError where error.category == .cancelled && RequestCancellation.isCancelled {
            await withCheckedContinuation { continuation in
                let stopped: Bool = control.withLock { control in
                    guard control.runner != nil else { return true }
                    control.stopWaiters.append(continuation)
                    return false
                }
                if stopped { continuation.resume() }
            }
            switch state {
            case .completed(let summary):
                return summary
            case .failed(let failure):
                throw failure
            case .suspended:
                throw TransportError(
                    .cancelled,
                    message:
                        "The download of \(request.url) was cancelled; the \(PartialFile.size(of: destination)) bytes "
                        + "received are kept in \(partialPath) for a later download that resumes it.",
                    url: request.url)
            default:
                throw DownloadRun.cancelledError(url: request.url)
            }
        }
    }

    // MARK: - Runs

    /// Starts a run; the caller holds the lock and has checked that none is in progress.
    private func launch(_ control: inout Control) {
        control.stopRequest = nil
        control.resumesAfterStop = false
        transition(&control, to: .running)
        var run = DownloadRun(
            request: request, destination: destination, transport: transport, options: options,
            report: { [weak self] progress in self?.publish(progress) })
        run.discardsEarlierPartial = !options.resumesEarlierPartial && !control.hasLaunched
        control.hasLaunched = true
        // The task keeps the download alive until the run's end is recorded.
        control.runner = Task { [self] in
            let outcome: Result<Summary, any Error>
            do {
                // The run is the download's, stopped by `suspend()` and `cancel()`: it takes no
                // request handle's cancellation along from the task that started it, only its
                // suspension, which holds the transfer still while the handle is suspended.
                outcome = .success(try await RequestCancellation.keepingSuspension { try await run.execute() })
            } catch {
                outcome = .failure(error)
            }
            runEnded(with: outcome)
        }
    }

    /// Records the end of the run in progress: its files are closed by now.
    private func runEnded(with outcome: Result<Summary, any Error>) {
        let finished: Bool = control.withLock { control in
            control.runner = nil
            for waiter in control.stopWaiters { waiter.resume() }
            control.stopWaiters = []
            let stopRequest = control.stopRequest
            control.stopRequest = nil
            switch outcome {
            case .success(let summary):
                end(&control, in: .completed(summary), result: .success(summary))
                return true
            case .failure(let error):
                switch stopRequest {
                case .cancel:
                    PartialFile.removeArtifacts(of: destination)
                    end(&control, in: .cancelled, result: .failure(DownloadRun.cancelledError(url: request.url)))
                    return true
                case .suspend:
                    if control.resumesAfterStop {
                        launch(&control)
                    } else {
                        transition(&control, to: .suspended)
                    }
                    return false
                case nil:
                    let failure =
                        TransportError(
                            wrapping: error, url: request.url, context: "The download of \(request.url) failed")
                    end(&control, in: .failed(failure), result: .failure(failure))
                    return false
                }
            }
        }
        if finished { finishStreams() }
    }

    /// Moves to `state` and resumes every waiter with `result`.
    private func end(_ control: inout Control, in state: State, result: Result<Summary, any Error>) {
        transition(&control, to: state)
        let waiters = control.waiters.values
        control.waiters = [:]
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Sets the state and tells the subscribers, under the lock so changes keep their order.
    private func transition(_ control: inout Control, to state: State) {
        guard control.state != state else { return }
        control.state = state
        states.yield(state)
    }

    /// Ends the streams after a final state; outside the lock, because it runs their
    /// termination handlers.
    private func finishStreams() {
        states.finish()
        progressEvents.finish()
    }

    /// Records and hands out a progress event.
    private func publish(_ progress: TransferProgress) {
        control.withLock { control in
            control.progress = progress
            progressEvents.yield(progress)
        }
        options.progressHandler?(progress)
    }

    private func waitCancelledError() -> TransportError {
        TransportError(
            .cancelled, message: "Waiting for the download of \(request.url) was cancelled; the download goes on.",
            url: request.url)
    }
}
