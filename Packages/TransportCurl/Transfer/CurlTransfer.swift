import CCurl
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Transport

/// One request's life on the loop: its easy-handle options, its C callbacks' state, its
/// redirects, and the continuation that hands the result back to Swift.
///
/// The type is spread over three files: this one (state, set-up, completion, redirects), the
/// options it sets on its easy handle (`CurlTransfer+Options.swift`) and the entry points of
/// the C callbacks (`CurlTransfer+Callbacks.swift`). What a redirect does to the request is
/// decided by ``RedirectRules``, apart from libcurl.
///
/// Ownership: the loop keeps a transfer alive from `start` to `finish` twice over, in its
/// heap of attached transfers (ordered by their next stall check) and as the `Unmanaged` reference retained into `CURLOPT_PRIVATE` (and the
/// callbacks' user data) by ``attach(to:)`` and released exactly once by ``detach()``.
final class CurlTransfer: DeadlineHeapElement, @unchecked Sendable {
    // Safety of @unchecked Sendable: a transfer is created on the caller's task, which sets
    // `dataContinuation`/`headContinuation` and then hands the transfer to the loop through
    // the loop's locked command queue (a happens-before edge). From then on every stored
    // `var` is read and written only on the loop thread. Other threads only post commands
    // through the immutable `commands` reference (a locked queue) and touch
    // `cancelRequested`, an `Atomic`. The one exception is the end of a collected transfer:
    // the loop thread writes `collectedHead` (with `body`, `currentURL` and `metrics` written
    // before it) and then resumes `dataContinuation`, and writes none of them again (a
    // completed transfer is detached: no callback runs for it, and every later command finds
    // it so and returns); the resumed task reads them in `collectedResponse()`, after the
    // resumption, which is a happens-before edge, and takes the head and the body out (the
    // loop never reads them again either). ThreadSanitizer misses that edge when the
    // loop resumes before the task has suspended (the runtime's uninstrumented fast path), so
    // `collectedPublished` states it to it as well.

    /// How the body is handed over.
    enum Mode {
        /// Gather the body, resume once; the task then reads the ``DataResponse``.
        case collect
        /// Resume with the head, then stream the body through the buffer.
        case stream(ResponseStreamBuffer)
    }

    /// What the loop does with a transfer libcurl reports as done.
    enum Step {
        /// Follow a redirect on the same handle.
        case redirect(CurlEasyHandle)
        /// The transfer is over.
        case finished(Result<Void, TransportError>)
    }

    // Set before start, read on the loop. Unsafe continuations, which cost no allocation per
    // request, are sound here: each is resumed at most once, because every resumption (in
    // `complete(_:)` and `deliverHead()`, on the loop thread only) sets the property to `nil`
    // first or marks the head delivered; and at least once, because every transfer posted
    // to the loop is completed (finished, cancelled, failed to attach, or failed at shutdown,
    // leftover `.start` commands included), and `start(_:)` completes one the loop refused.
    /// Resumed when the collected response is complete (``Mode/collect``): the waiting task
    /// then reads it from the transfer (``collectedResponse()``), which the loop no longer
    /// changes. Nothing is handed through the continuation, so that no frame of the waiting
    /// task holds room for a response.
    var dataContinuation: UnsafeContinuation<Void, any Error>?
    /// Resumed with the response head (``Mode/stream(_:)``).
    var headContinuation: UnsafeContinuation<StreamedTransfer, any Error>?
    /// Set by ``cancel()`` on any thread, so that a cancel before the start is honoured.
    let cancelRequested = Atomic(false)
    /// Stored (releasing) by the loop just before it resumes ``dataContinuation`` without an
    /// error, and loaded (acquiring) by ``collectedResponse()``: the order the resumption makes
    /// already, made visible to ThreadSanitizer, which does not see it when the continuation is
    /// resumed before its task has suspended (the Swift runtime's check of that case is not
    /// instrumented).
    private let collectedPublished = Atomic(false)
    /// Set by ``setSuspended(_:)`` on any thread: whether the request's handle is suspended, so
    /// that a suspend before the start is honoured; the loop applies it (``applySuspension(now:)``).
    let suspendRequested = Atomic(false)

    // Loop-thread state. The extensions in `CurlTransfer+Options.swift` and
    // `CurlTransfer+Callbacks.swift` use it too, which is why it is not `private`.
    //
    // The properties marked `@exclusivity(unchecked)` are the ones whose exclusive access the
    // compiler cannot prove statically, because some access to them calls a mutating method
    // (a body appended, a parser or a throttle stepped): checking them at run time cost every
    // request some twenty checks of the runtime's access set. Safety: they are read and
    // written on the loop thread only (above), so no two accesses come from two threads; and
    // no access to one of them overlaps another access to the same property on that thread,
    // because the methods called during an access are pure value code (`Data`, the parser,
    // `StallWatch`, `ProgressThrottle`, `TransportRequest`) that never calls back into the
    // transfer, the loop, libcurl or a caller's handler.
    /// The request of the current hop (redirects rewrite it).
    @exclusivity(unchecked)
    var request: TransportRequest
    /// The transport's configuration, shared by its transfers: each holds a reference rather
    /// than a copy of the whole struct (its loggers, TLS paths and default options), which kept
    /// a few hundred bytes and a dozen references per request in flight.
    let settings: Settings
    /// The transport's configuration.
    var configuration: CurlTransport.Configuration { settings.configuration }

    /// A transport's configuration, made once and shared by every transfer of the transport.
    final class Settings: Sendable {
        let configuration: CurlTransport.Configuration
        /// Whether the environment names no proxy for the schemes the engine speaks, read once
        /// when the transport is made (see ``CurlTransfer/environmentProxyNames(https:)``).
        let environmentNamesNoProxy: Bool

        init(
            _ configuration: CurlTransport.Configuration,
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) {
            self.configuration = configuration
            environmentNamesNoProxy = [true, false].allSatisfy { https in
                CurlTransfer.environmentProxyNames(https: https).allSatisfy { environment[$0]?.isEmpty ?? true }
            }
        }
    }
    /// How the body is handed over.
    var mode: Mode = .collect
    /// The queue of the loop that runs this transfer: the transfer's one way to ask the loop
    /// for anything (it never calls the loop), from any thread.
    let commands: CurlCommandQueue
    /// The easy handle while the transfer is attached.
    private var handle: CurlEasyHandle?
    /// This transfer, retained for libcurl while attached.
    var retainedSelf: Unmanaged<CurlTransfer>?
    /// The header list libcurl sends for the current hop.
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The URL of the current hop.
    var currentURL: String
    /// The URL the caller asked for (immutable, so any thread may read it).
    let initialURL: String
    /// The request body of the current hop, open while it is sent.
    var upload: UploadSource?
    /// The first hop's URL, validated by the transport before the transfer was created.
    var validatedFirstURL: String?
    /// When the first hop started; the deadline counts from here.
    @exclusivity(unchecked)
    var firstStart: ContinuousClock.Instant?
    /// Redirects followed so far.
    private var redirectCount = 0

    // Per hop.
    /// The response head, as the header callback collects it: the head of the easy handle,
    /// from the first hop's configuration on (`nil` before).
    @exclusivity(unchecked)
    var response: ResponseHeadParser!
    /// Whether this hop's final head is a redirect the engine follows (its body is discarded).
    var isRedirectHop = false
    /// Whether the head just read is an authentication challenge libcurl answers with a second
    /// request (its body is discarded, its head is not the response).
    var isAuthChallengeHop = false
    /// How many such challenges this hop answered.
    var authChallengesAnswered = 0
    /// The collected body (``Mode/collect``).
    @exclusivity(unchecked)
    var body = Data()
    /// Body bytes received (decoded) in this hop.
    var bodyBytes: Int64 = 0
    /// Why a callback aborted the transfer, when it did.
    var abortReason: TransportError?
    /// Whether the head went to the streaming consumer.
    private var headDelivered = false
    /// Whether the transfer started on a crowded loop (``attach(to:crowded:)``).
    var startedCrowded = false
    /// Whether the write callback paused receiving for a full response buffer.
    var isReceivePaused = false
    /// Whether the read callback paused sending for an empty request-body buffer.
    var isSendPaused = false
    /// Whether the request's handle is suspended, as the loop last applied it: both directions
    /// stay paused whatever the buffers say, and the callbacks pause the transfer again should
    /// a new hop clear libcurl's pause.
    var isSuspended = false
    /// The timings and sizes libcurl reports for the finished transfer.
    private var metrics: TransferMetrics?
    /// The final head of a collected transfer that succeeded, copied from the handle's parser
    /// before the handle goes back to the pool (``Mode/collect``).
    private var collectedHead: ReceivedResponseHead?
    /// Turns libcurl's progress reports into events.
    @exclusivity(unchecked)
    var progress = ProgressThrottle()
    /// Body bytes moved in either direction, for the stall check.
    var bytesMoved: Int64 = 0
    /// Bytes moved in either direction, headers included (the header callback counts those).
    var movedSoFar: Int64 { bytesMoved &+ (response?.bytesMoved ?? 0) }
    /// Tracks how long ``bytesMoved`` has stood still.
    @exclusivity(unchecked)
    var stallWatch = StallWatch()
    /// Where the transfer sits in the loop's heap of stall checks while it is attached.
    var deadlineHeapIndex: Int?
    /// The time between two stall checks, in nanoseconds (``StallWatch/checkInterval(for:)``).
    private var stallCheckInterval: Int64 = 0

    /// Whether the transfer is on the multi handle now.
    var isAttached: Bool { handle != nil }

    /// Creates a transfer for a request.
    ///
    /// - Parameter validatedURL: What `RequestValidation.validate(request.head)` returned, when
    ///   the caller has checked the request already; the first hop then skips the check.
    init(
        request: consuming TransportRequest, settings: Settings, commands: CurlCommandQueue,
        validatedURL: String? = nil
    ) {
        // The validated URL is the same text with the scheme in lowercase: no need to build it again.
        let url = validatedURL ?? request.url
        self.request = consume request
        self.commands = commands
        self.settings = settings
        self.currentURL = url
        self.initialURL = url
        self.validatedFirstURL = validatedURL
        LiveCounts.curlTransfers.increment()
    }

    deinit {
        LiveCounts.curlTransfers.decrement()
    }

    // MARK: - Any thread

    /// Stops the transfer within milliseconds; its continuation fails with `.cancelled`.
    func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        let error = TransportError(
            .cancelled, message: "The request was cancelled before it completed.", url: initialURL)
        commands.post(.cancel(self, error))
    }

    // MARK: - Loop thread: set-up

    /// Takes the handle, retains the context for libcurl and configures the first hop.
    ///
    /// - Parameter crowded: Whether the loop runs ``CurlEventLoop/crowdedThreshold`` transfers
    ///   or more as this one starts: a collected body then takes the smallest receive buffer
    ///   (``crowdedCollectedReceiveBufferSize``), for this hop and its redirects.
    func attach(to handle: CurlEasyHandle, crowded: Bool = false) throws {
        if cancelRequested.load(ordering: .acquiring) {
            throw TransportError(
                .cancelled, message: "The request was cancelled before it started.",
                url: currentURL, mayHaveReachedServer: false)
        }
        self.firstStart = .now
        startedCrowded = crowded
        handle.head.bytesMoved = 0
        isSuspended = suspendRequested.load(ordering: .acquiring)
        try configure(handle)
        self.handle = handle
        self.retainedSelf = Unmanaged.passRetained(self)
        setContext(on: handle)
        if configuration.logger.logLevel <= .debug {
            configuration.logger.debug("→ \(request.head.method) \(LogRedaction.redactedURL(currentURL))")
            configuration.logger.trace("request headers:\n\(request.head.headerFields.redactedForLogging)")
        }
    }

    /// Counts a request libcurl is about to send, its own resends included (see
    /// `CurlEasyHandle.resetIfResent()`).
    func onRequestSent() {
        handle?.requestsSent += 1
        beginAnsweringChallenge()
    }

    /// Gives the handle back and releases the context retained for libcurl; safe to call twice.
    func detach() -> CurlEasyHandle? {
        guard let handle else { return nil }
        self.handle = nil
        retainedSelf?.release()
        retainedSelf = nil
        // The handle is kept for reuse: it must not point at the list freed here. (Its own
        // default list stays set: it lives as long as the handle.)
        if headerList != nil {
            _ = parley_easy_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, nil)
            freeHeaderList()
        }
        upload?.close()
        upload = nil
        return handle
    }

    /// What a stall check found.
    enum StallCheck {
        /// The transfer stalled: fail it with this error.
        case stalled(TransportError)
        /// The transfer is healthy (or waits on its caller, or still connects): look again then.
        case checkAgain(at: LoopInstant)
    }

    /// Starts the stall clock when the transfer is attached.
    ///
    /// - Returns: When the loop first checks the transfer.
    func startStallWatch(now: LoopInstant) -> LoopInstant {
        stallCheckInterval = StallWatch.checkIntervalNanoseconds(for: request.options.stallTimeout)
        stallWatch.start(bytesMoved: movedSoFar, now: now)
        return now.advanced(byNanoseconds: stallCheckInterval)
    }

    /// The stall error when no byte has moved for the stall timeout while the transfer was
    /// connected and not paused by its own consumer or producer; otherwise when to check
    /// again. The loop asks when the transfer's check comes due (``StallWatch/checkInterval(for:)``).
    func checkStall(now: LoopInstant) -> StallCheck {
        let next = StallCheck.checkAgain(at: now.advanced(byNanoseconds: stallCheckInterval))
        guard let handle else { return next }
        let timeout = request.options.stallTimeout
        let waitingOnCaller = isReceivePaused || isSendPaused || isSuspended
        guard stallWatch.isStalled(bytesMoved: movedSoFar, excused: waitingOnCaller, now: now, timeout: timeout)
        else { return next }
        var preTransfer: curl_off_t = 0
        _ = parley_easy_getinfo_off_t(handle.pointer, CURLINFO_PRETRANSFER_TIME_T, &preTransfer)
        guard preTransfer > 0 else { return next }  // Still connecting: the connect timeout governs.
        return .stalled(
            TransportError(
                .stalledTransfer,
                message: "No data moved to or from \(CurlErrorMapping.hostAndPort(of: currentURL)) for "
                    + "\(timeout), so the transfer was stopped as stalled. The server or the network "
                    + "stopped responding; retry later or raise TransferOptions.stallTimeout.",
                url: currentURL))
    }

    /// Unpauses one direction (the other keeps its state); a suspended transfer stays paused.
    func resume(receiving: Bool) {
        guard let handle else { return }
        if receiving { isReceivePaused = false } else { isSendPaused = false }
        curl_easy_pause(handle.pointer, pauseBits)
    }

    /// The directions libcurl must keep paused: both while suspended, else those a buffer holds.
    private var pauseBits: Int32 {
        if isSuspended { return parley_pause_recv | Int32(CURLPAUSE_SEND) }
        return (isReceivePaused ? parley_pause_recv : 0) | (isSendPaused ? Int32(CURLPAUSE_SEND) : 0)
    }

    // MARK: - Suspension

    /// Asks the loop to pause (`true`) or unpause (`false`) the transfer for its handle's
    /// suspension, from any thread; the loop applies the latest wish (``applySuspension(now:)``).
    func setSuspended(_ suspended: Bool) {
        guard suspendRequested.exchange(suspended, ordering: .acquiringAndReleasing) != suspended else { return }
        commands.post(.applySuspension(self))
    }

    /// Pauses or unpauses both directions as the handle's suspension now says (loop thread).
    /// A resumed transfer starts its stall clock afresh: the time it was held is not a stall.
    func applySuspension(now: LoopInstant) {
        guard let handle else { return }
        let suspended = suspendRequested.load(ordering: .acquiring)
        guard suspended != isSuspended else { return }
        isSuspended = suspended
        if !suspended { stallWatch.start(bytesMoved: movedSoFar, now: now) }
        curl_easy_pause(handle.pointer, pauseBits)
    }

    // MARK: - Loop thread: completion

    /// Turns libcurl's result into the next step.
    func outcome(of code: CURLcode) -> Step {
        guard let handle else {
            return .finished(.failure(TransportError(.other, message: "Transfer finished twice.")))
        }
        if code == CURLE_OK && isRedirectHop {
            do {
                try followRedirect(handle)
                return .redirect(handle)
            } catch {
                return .finished(.failure(TransportError(wrapping: error, url: currentURL)))
            }
        }
        metrics = CurlMetrics.read(from: handle.pointer, redirectCount: redirectCount)
        if code == CURLE_OK { return .finished(.success(())) }
        if let abortReason { return .finished(.failure(abortReason)) }
        return .finished(
            .failure(
                CurlErrorMapping.error(
                    for: code, handle: handle, url: currentURL, options: request.options, elapsed: elapsed,
                    headIsComplete: response.isComplete)))
    }

    /// Rewrites the request for the redirect's target, by ``RedirectRules``.
    private func followRedirect(_ handle: CurlEasyHandle) throws {
        let status = response.status
        var target: UnsafeMutablePointer<CChar>?
        _ = parley_easy_getinfo_string(handle.pointer, CURLINFO_REDIRECT_URL, &target)
        let hop = try RedirectRules(limit: request.options.redirects.limit).decide(
            status: status, method: request.head.method, body: RedirectRules.BodyKind(request.body),
            from: RedirectRules.Origin(scheme: request.head.scheme, authority: request.head.authority),
            resolvedTarget: target.map { String(cString: $0) }, location: response.location,
            followed: redirectCount, currentURL: currentURL
        ).get()
        let from = currentURL
        // Rewritten in locals: two `inout` accesses to `request` at once would conflict.
        var head = request.head
        var body = request.body
        var stripped = hop.apply(to: &head, body: &body)
        request.head = head
        request.body = body
        if hop.changesOrigin && request.options.credentials != nil {
            // Credentials belong to the first origin: libcurl would send them to any host.
            request.options.credentials = nil
            if !stripped.contains(.authorization) { stripped.append(.authorization) }
        }
        redirectCount += 1
        configuration.logger.debug(
            "↪ \(status) \(LogRedaction.redactedURL(from)) → \(LogRedaction.redactedURL(hop.url))")
        request.options.eventHandler?(
            .redirect(
                RedirectEvent(
                    from: from, to: hop.url, status: status, method: hop.method, strippedHeaders: stripped)))
    }

    /// Hands the result to the waiting task.
    func complete(_ outcome: Result<Void, TransportError>) {
        if case .success = outcome, let handler = request.options.eventHandler {
            progress.reportFinal(emit: handler)
            if let metrics { handler(.metrics(metrics)) }
        }
        logCompletion(outcome)
        switch mode {
        case .collect:
            guard let continuation = dataContinuation else { return }
            dataContinuation = nil
            switch outcome {
            case .success:
                // The last writes of the loop thread to this transfer: the task reads them
                // once resumed (`collectedResponse()`).
                collectedHead = response.receivedHead()
                collectedPublished.store(true, ordering: .releasing)
                continuation.resume()
            case .failure(let error):
                continuation.resume(throwing: error)
            }
        case .stream(let buffer):
            if !headDelivered {
                if case .failure(let error) = outcome {
                    headDelivered = true
                    headContinuation?.resume(throwing: error)
                    headContinuation = nil
                    buffer.finish(outcome)
                    return
                }
                deliverHead()
            }
            buffer.finish(outcome)
        }
    }

    /// Whether a ``CurlCommandQueue/Command/deliver(_:)`` for this transfer is queued.
    var isScheduledForDelivery = false

    /// Asks the loop to call ``deliver()`` once the callbacks of this pass have run: at most
    /// one request per pass, however many chunks arrived.
    func scheduleDelivery() {
        guard !isScheduledForDelivery else { return }
        isScheduledForDelivery = true
        commands.post(.deliver(self))
    }

    /// Hands a streaming consumer what arrived: the head, then pending bytes.
    func deliver() {
        isScheduledForDelivery = false
        deliverHead()
        if case .stream(let buffer) = mode, buffer.flush() { resume(receiving: true) }
    }

    /// Resumes the task waiting in `send` with the response head (stream mode).
    func deliverHead() {
        guard !headDelivered, case .stream(let buffer) = mode else { return }
        headDelivered = true
        headContinuation?.resume(
            returning: StreamedTransfer(head: response.receivedHead(), body: buffer, url: currentURL))
        headContinuation = nil
    }

    /// Logs the outcome at debug level, and the response headers at trace level.
    private func logCompletion(_ outcome: Result<Void, TransportError>) {
        guard configuration.logger.logLevel <= .debug else { return }
        switch outcome {
        case .success:
            configuration.logger.debug(
                "← \(response.status) \(LogRedaction.redactedURL(currentURL)) (\(bodyBytes) bytes)")
            if configuration.logger.logLevel == .trace {
                configuration.logger.trace("response headers:\n\(response.makeHead().headerFields.redactedForLogging)")
            }
        case .failure(let error):
            configuration.logger.debug("✕ \(LogRedaction.redactedURL(currentURL)): \(error)")
        }
    }

    /// The collected response, for the task that awaited it, once ``dataContinuation`` resumed
    /// it without an error: the loop writes nothing of what this reads after that resumption.
    /// Called once: the head and the body are moved out, so that the response holds the only
    /// reference to each (a cache marks such a head in place, and a body changed in place keeps
    /// its buffer), whatever happens to the transfer afterwards.
    func collectedResponse() -> DataResponse {
        // `collectedHead` is set before every successful resumption; the empty head stands
        // for a transfer completed some other way, which never resumes without an error.
        _ = collectedPublished.load(ordering: .acquiring)
        let head = collectedHead.take() ?? ReceivedResponseHead(status: 0, reason: "", lines: [])
        return DataResponse(
            receivedHead: head, body: exchange(&body, with: Data()), url: currentURL, metrics: metrics)
    }

    /// Time since the first hop started.
    var elapsed: Duration { firstStart.map { ContinuousClock.now - $0 } ?? .zero }
}

/// What a streamed transfer hands back when its head has arrived.
struct StreamedTransfer: Sendable {
    /// The final head, as received.
    let head: ReceivedResponseHead
    /// The buffer the body streams through.
    let body: ResponseStreamBuffer
    /// The URL of the last hop.
    let url: String

    /// The response, its head built when first read.
    func makeResponse() -> TransportResponse {
        TransportResponse(receivedHead: head, body: ResponseBody(stream: body), url: url)
    }
}
