public import Transport

/// The HTTP engine: an ``/Transport/HTTPTransport`` on libcurl's multi interface.
///
/// One `CurlTransport` owns ``Configuration/loopCount`` event loops, each a thread of its own
/// with its own libcurl multi handle, connection cache and pool of easy handles; the requests
/// sent through it share them, so create one transport for the application and share it. Each
/// request runs on one loop: the loop its task prefers as an executor (``taskExecutor``), else
/// for an HTTPS origin the origin's own loop, else the origin's own loop until it is busy, then
/// the loop with the fewest transfers in flight.
/// HTTPS connections negotiate HTTP/2 and multiplex requests to the same origin over one
/// connection; cleartext connections use HTTP/1.1 keep-alive. The connection limits hold for the
/// transport as a whole, divided between its loops.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.maximumConnectionsPerHost = 8
/// let transport = try CurlTransport(configuration: configuration)
/// let request = try TransportRequest(method: .get, url: "https://example.com/")
/// let response = try await transport.data(for: request)
/// await transport.shutdown()
/// ```
///
/// Safe by default: TLS verification on, at most 10 redirects (http and https only, with
/// credentials dropped on a change of origin), a 10 s connect timeout, a 30 s stall timeout, a
/// 64 MiB limit on bodies collected in memory, and CR, LF and NUL rejected in URLs and
/// headers before any socket opens. Change a default for every request in
/// ``Configuration/defaultOptions``; a request's own options win over it.
///
/// Cancelling the task that awaits a request stops the transfer within milliseconds and frees
/// its connection.
///
/// ## Signals
///
/// The transport changes no signal disposition and blocks no signal. `SIGPIPE` in particular
/// stays as the program set it, by default ending the process when the reader of one of its
/// pipes goes away (what a command piped into `head` relies on). The engine's own writes never
/// raise it: each transfer sets `CURLOPT_NOSIGNAL`, libcurl sends on its sockets with
/// `MSG_NOSIGNAL`, and with OpenSSL it writes TLS records through the same send. A server that
/// closes the connection while a request body is still going out fails that request with
/// ``/Transport/ErrorCategory/connectionReset``, over plain HTTP and over TLS alike.
/// A program that wants `EPIPE` from its own writes instead ignores `SIGPIPE` itself.
public final class CurlTransport: HTTPTransport {
    /// The event loops and the placement of transfers on them.
    let loops: CurlLoopGroup
    /// The settings the transport was created with.
    public let configuration: Configuration
    /// The configuration as every transfer of the transport shares it.
    private let settings: CurlTransfer.Settings

    /// Starts an engine: its event loops, each on a thread of its own.
    ///
    /// - Parameter configuration: Engine-wide settings; ``Configuration/init()`` by default.
    /// - Throws: ``/Transport/TransportError`` when libcurl cannot be initialised, or when
    ///   ``Configuration/loopCount`` is below 1.
    public init(configuration: Configuration = Configuration()) throws {
        guard configuration.loopCount >= 1 else {
            throw TransportError(
                .other,
                message: "CurlTransport.Configuration.loopCount is \(configuration.loopCount), but a transport needs "
                    + "at least one event loop; set it to 1 or more, or leave its default "
                    + "(\(Configuration.defaultLoopCount) on this machine).",
                mayHaveReachedServer: false)
        }
        self.configuration = configuration
        self.settings = CurlTransfer.Settings(configuration)
        self.loops = try CurlLoopGroup(configuration: configuration)
    }

    deinit {
        loops.requestShutdown()
    }

    /// How many event loops the transport runs: ``Configuration/loopCount``, more when the
    /// connection limits allow over 1,024 connections a loop (extra loops, up to 64 in all),
    /// or fewer when the limits are smaller than the loops (each loop holds at least one
    /// connection per host).
    public var loopCount: Int { loops.loops.count }

    /// Sends a request and returns when the response head has arrived; the body streams.
    ///
    /// The body is buffered up to ``Configuration/streamBufferSize`` bytes; past that the
    /// engine stops reading from the network until the consumer catches up.
    ///
    /// - Parameter request: The request.
    /// - Returns: The head and a streaming body. Read it to the end or cancel it.
    /// - Throws: ``/Transport/TransportError``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let (transfer, placed) = try makeTransfer(request)
        // The transfer counts as in flight on its loop until the buffer, which holds the token,
        // goes away with the response body.
        let token = loops.streamToken(on: placed.loop)
        let buffer = ResponseStreamBuffer(
            highWaterMark: configuration.streamBufferSize,
            resumeReceiving: { [weak transfer] in
                if let transfer { transfer.commands.post(.resumeReceiving(transfer)) }
            },
            cancelTransfer: { [weak transfer] in
                withExtendedLifetime(token) { transfer?.cancel() }
            },
            suspendTransfer: { [weak transfer] suspended in transfer?.setSuspended(suspended) }
        )
        transfer.mode = .stream(buffer)
        // The task's cancellation, or the cancel of a request handle whose operation runs in
        // this task, cancels the transfer; that handle's suspension pauses it (until the head,
        // then through the body's reads).
        let streamed = try await RequestCancellation.withCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                transfer.headContinuation = continuation
                start(transfer)
            }
        } onCancel: {
            transfer.cancel()
        } onSuspensionChange: { suspended in
            transfer.setSuspended(suspended)
        }
        return streamed.makeResponse()
    }

    /// Sends a request and returns when the whole body is in memory.
    ///
    /// This is the cheapest way to make a request: the body is gathered on the engine's
    /// thread and the calling task is resumed once.
    ///
    /// - Parameter request: The request.
    /// - Returns: The head, the body (decoded if compressed) and the transfer's metrics.
    /// - Throws: ``/Transport/TransportError``; a body larger than
    ///   ``/Transport/TransferOptions/maximumBodySize`` (the request's own, else
    ///   ``Configuration/defaultOptions``', else 64 MiB) fails with
    ///   `.responseTooLarge` as soon as the limit is passed.
    public func data(for request: TransportRequest) async throws -> DataResponse {
        // The frame of this function is held by every request waiting in flight, so it keeps
        // only the transfer and its placement across the wait: the response is read from the
        // transfer afterwards, not handed through the continuation (whose result would sit in
        // this frame and in the operation's), and the work before and after the wait is done
        // in functions of their own, whose locals are not kept.
        let (transfer, placed) = try makeTransfer(request)
        loops.began(on: placed.loop)
        defer { loops.ended(on: placed.loop) }
        try await RequestCancellation.withCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                transfer.dataContinuation = continuation
                start(transfer)
            }
        } onCancel: {
            transfer.cancel()
        } onSuspensionChange: { suspended in
            transfer.setSuspended(suspended)
        }
        return collectedResponse(of: transfer, placed: placed)
    }

    /// The response of a collected transfer that completed, made on the caller's thread: the
    /// head's fields are built when the caller reads them.
    @inline(never)
    private func collectedResponse(of transfer: CurlTransfer, placed: CurlLoopGroup.Placed) -> DataResponse {
        let response = transfer.collectedResponse()
        if let origin = placed.pinnedOrigin, let version = response.metrics?.httpVersion {
            loops.learn(httpVersion: version, of: origin)
        }
        return response
    }

    /// One of the engine's loop threads as a task executor, for tasks that mostly send requests
    /// and wait for them; each read of this property gives the next loop's, in turn.
    ///
    /// A task that prefers this executor runs on that loop's thread, between two of its passes;
    /// the requests it sends run on the same loop, and a response resumes it there: no other
    /// thread is woken to take the result and none to hand the next request to the engine, the
    /// two thread hops every request otherwise costs. Child tasks inherit the preference, so
    /// they share the loop; to spread child tasks over every loop, give each its own
    /// preference.
    ///
    /// ```swift
    /// // One loop for the task and its children:
    /// let responses = try await withTaskExecutorPreference(transport.taskExecutor) {
    ///     try await withThrowingTaskGroup(of: DataResponse.self) { group in
    ///         for request in requests { group.addTask { try await transport.data(for: request) } }
    ///         return try await group.reduce(into: []) { $0.append($1) }
    ///     }
    /// }
    /// // Each child on the next loop:
    /// try await withThrowingTaskGroup(of: DataResponse.self) { group in
    ///     for request in requests {
    ///         group.addTask(executorPreference: transport.taskExecutor) { try await transport.data(for: request) }
    ///     }
    ///     for try await response in group { print(response.status) }
    /// }
    /// ```
    ///
    /// While such code runs, no transfer of its loop moves: keep it to building requests and
    /// reading responses, and decode large bodies or do other heavy work on another executor.
    /// Never block in it (a lock held across an `await`, a semaphore), or the loop stops. After
    /// ``shutdown()`` the jobs of such tasks run on the global concurrent executor.
    public var taskExecutor: any TaskExecutor { loops.nextExecutor() }

    /// Stops the engine: running transfers fail with `.shutDown`, connections close, and every
    /// loop thread exits before this returns. Later requests fail with `.shutDown`.
    public func shutdown() async {
        await loops.shutdown()
    }

    /// Stops the engine gracefully: it takes no new request, lets the requests in flight finish
    /// for up to `gracePeriod`, cancels those still running then, and stops as ``shutdown()``
    /// does.
    ///
    /// From the moment this is called, a new request fails with
    /// ``/Transport/ErrorCategory/shutDown`` (it never reaches a server). A request in
    /// flight is one whose transfer runs: a collected request until its body is in memory, a
    /// streamed one until its body has arrived (read it: one whose consumer stops reading holds
    /// the shutdown until the grace period ends). Those still running when the grace period
    /// ends fail with ``/Transport/ErrorCategory/cancelled``, saying so. Cancelling the
    /// task that awaits this ends the grace period at once.
    ///
    /// ```swift
    /// // On SIGTERM: finish what runs, for at most 10 seconds.
    /// await transport.shutdown(gracePeriod: .seconds(10))
    /// ```
    ///
    /// `ParleyServiceLifecycle` runs a transport as a swift-service-lifecycle `Service` that
    /// calls this on a graceful shutdown.
    ///
    /// - Parameter gracePeriod: How long the requests in flight may take to finish.
    /// - Returns: Whether every request in flight finished within the grace period.
    @discardableResult
    public func shutdown(gracePeriod: Duration) async -> Bool {
        let late = TransportError(
            .cancelled,
            message: "The transport shut down gracefully and this request was still running when its grace period "
                + "(\(gracePeriod)) ran out; send it again through a transport that is running, or give the "
                + "shutdown a longer grace period.",
            mayHaveReachedServer: true)
        return await loops.shutdown(gracePeriod: gracePeriod, lateError: late)
    }

    /// A transfer for `request` on the loop that will run it, and that loop's index.
    @inline(never)
    private func makeTransfer(_ request: consuming TransportRequest) throws -> (CurlTransfer, CurlLoopGroup.Placed) {
        if RequestCancellation.isCancelled {
            throw TransportError(
                .cancelled, message: "The request was cancelled before it started.",
                url: request.url, mayHaveReachedServer: false)
        }
        // A request the validating initialiser made, and nothing changed unchecked since, was
        // validated there; any other (a raw head, a head changed in place) is checked now.
        let url = try request.validatedURL ?? RequestValidation.validate(request.head)
        // From here on the transfer reads only resolved options: what the request set, else
        // the engine's defaults, else the built-in ones. The request is this call's own copy, so
        // they are resolved in place and it moves into the transfer without another copy.
        request.options = request.options.resolved(over: configuration.defaultOptions)
        let placed = loops.place(url)
        let transfer = CurlTransfer(
            request: request, settings: settings, commands: loops.loops[placed.loop].commands,
            validatedURL: url)
        return (transfer, placed)
    }

    private func start(_ transfer: CurlTransfer) {
        if !transfer.commands.post(.start(transfer)) {
            transfer.complete(
                .failure(
                    TransportError(
                        .shutDown,
                        message: "The transport is shut down, or shutting down, and takes no new requests; send "
                            + "them through a transport that runs (create a new CurlTransport).",
                        url: transfer.initialURL, mayHaveReachedServer: false)))
        }
    }
}
