public import Transport

/// The HTTP engine: an ``/Transport/HTTPTransport`` on libcurl's multi interface.
///
/// One `CurlTransport` owns one event-loop thread and one libcurl multi handle; every request
/// sent through it shares that thread and its connection cache, so create one transport for
/// the application and share it. HTTPS connections negotiate HTTP/2 and multiplex requests
/// to the same host over one connection; cleartext connections use HTTP/1.1 keep-alive.
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
/// ``/Transport/TransportError/Category/connectionReset``, over plain HTTP and over TLS alike.
/// A program that wants `EPIPE` from its own writes instead ignores `SIGPIPE` itself.
public final class CurlTransport: HTTPTransport {
    private let loop: CurlEventLoop
    /// The settings the transport was created with.
    public let configuration: Configuration

    /// Starts an engine.
    ///
    /// - Parameter configuration: Engine-wide settings; ``Configuration/init()`` by default.
    /// - Throws: ``/Transport/TransportError`` when libcurl cannot be initialised.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.loop = try CurlEventLoop(configuration: configuration)
    }

    deinit {
        loop.requestShutdown()
    }

    /// Sends a request and returns when the response head has arrived; the body streams.
    ///
    /// The body is buffered up to ``Configuration/streamBufferSize`` bytes; past that the
    /// engine stops reading from the network until the consumer catches up.
    ///
    /// - Parameter request: The request.
    /// - Returns: The head and a streaming body. Read it to the end or cancel it.
    /// - Throws: ``/Transport/TransportError``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let transfer = try makeTransfer(request)
        let buffer = ResponseStreamBuffer(
            highWaterMark: configuration.streamBufferSize,
            resumeReceiving: { [weak transfer] in
                if let transfer { transfer.commands.post(.resumeReceiving(transfer)) }
            },
            cancelTransfer: { [weak transfer] in transfer?.cancel() }
        )
        transfer.mode = .stream(buffer)
        let streamed = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                transfer.headContinuation = continuation
                start(transfer)
            }
        } onCancel: {
            transfer.cancel()
        }
        return try streamed.makeResponse()
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
        let transfer = try makeTransfer(request)
        let collected = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                transfer.dataContinuation = continuation
                start(transfer)
            }
        } onCancel: {
            transfer.cancel()
        }
        // The head is validated here, on the caller's thread, to keep the loop's work small.
        return try collected.makeResponse()
    }

    /// The engine's own thread as a task executor, for tasks that mostly send requests and
    /// wait for them.
    ///
    /// A task that prefers this executor runs on the engine's loop thread, between two of its
    /// passes, and a response resumes it there: no other thread is woken to take the result
    /// and none to hand the next request to the engine, the two thread hops every request
    /// otherwise costs. Child tasks inherit the preference.
    ///
    /// ```swift
    /// let responses = try await withTaskExecutorPreference(transport.taskExecutor) {
    ///     try await withThrowingTaskGroup(of: DataResponse.self) { group in
    ///         for request in requests { group.addTask { try await transport.data(for: request) } }
    ///         return try await group.reduce(into: []) { $0.append($1) }
    ///     }
    /// }
    /// ```
    ///
    /// While such code runs, no transfer of this engine moves: keep it to building requests
    /// and reading responses, and decode large bodies or do other heavy work on another
    /// executor. Never block in it (a lock held across an `await`, a semaphore), or the engine
    /// stops. After ``shutdown()`` the jobs of such tasks run on the global concurrent
    /// executor.
    public var taskExecutor: any TaskExecutor { loop.executor }

    /// Stops the engine: running transfers fail with `.shutDown`, connections close, and the
    /// loop thread exits before this returns. Later requests fail with `.shutDown`.
    public func shutdown() async {
        await loop.shutdown()
    }

    private func makeTransfer(_ request: TransportRequest) throws -> CurlTransfer {
        if Task.isCancelled {
            throw TransportError(
                .cancelled, message: "The request was cancelled before it started.",
                url: request.url, mayHaveReachedServer: false)
        }
        let url = try RequestValidation.validate(request.head)
        // From here on the transfer reads only resolved options: what the request set, else
        // the engine's defaults, else the built-in ones.
        var resolved = request
        resolved.options = request.options.resolved(over: configuration.defaultOptions)
        return CurlTransfer(request: resolved, configuration: configuration, commands: loop.commands, validatedURL: url)
    }

    private func start(_ transfer: CurlTransfer) {
        if !loop.commands.post(.start(transfer)) {
            transfer.complete(
                .failure(
                    TransportError(
                        .shutDown, message: "The transport was shut down; create a new CurlTransport to send requests.",
                        url: transfer.initialURL, mayHaveReachedServer: false)))
        }
    }
}
