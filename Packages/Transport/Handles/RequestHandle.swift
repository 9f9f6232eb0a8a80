public import HTTPTypes
import Synchronization

/// The reference handle every send returns: chain callbacks on it, await it, observe its
/// events, cancel it.
///
/// `DataRequest`, `UploadRequest` and `DownloadRequest` are this one type under the names
/// the business layer speaks; what differs between them is the operation behind the handle.
///
/// Callbacks chain and may be mixed freely with `await`:
///
/// ```swift
/// screen.forecast(city: "Paris")
///     .success { print($0.location) }
///     .failure { print($0.message) }
///     .completion { _ in spinner.stop() }
/// let forecast = try await screen.forecast(city: "Toronto").value
/// ```
///
/// - Handlers of every kind run in the order they were added, one at a time, each exactly
///   once; a handler added after the request finished runs at once. They run on the thread
///   that finished the request (or the one adding them, when already finished), never on an
///   actor: hop to your actor inside the handler when you need one.
/// - A handle starts at once unless it was created with `startImmediately: false`; then it
///   waits for ``start()``.
/// - ``cancel()`` stops the operation within milliseconds; the handle then fails with a
///   ``TransportError`` of category `.cancelled`.
public final class RequestHandle<Value: Sendable>: Sendable {
    /// What the operation produces: the value, and the response it came from.
    public struct Outcome: Sendable {
        /// The value.
        public var value: Value
        /// The response, when there was one.
        public var response: ResponseInfo?

        /// Creates an outcome.
        public init(value: Value, response: ResponseInfo?) {
            self.value = value
            self.response = response
        }
    }

    /// The work behind a handle; it reports events through the given sink.
    public typealias Operation = @Sendable (_ events: RequestEventSink) async throws -> Outcome

    private enum Phase {
        case waiting(Operation)
        case starting
        case running(Task<Void, Never>)
        case finished
    }

    private struct State {
        var phase: Phase
        var result: Result<Value, any Error>?
        var response: ResponseInfo?
        var handlers: [@Sendable (Result<Value, any Error>) -> Void] = []
        var isDraining = false
        var observers: [@Sendable (RequestEvent) -> Void] = []
        var onCancel: [@Sendable () -> Void] = []
    }

    private enum CancelAction {
        case none
        case cancelTask(Task<Void, Never>)
        case failNow
    }

    private let state: Mutex<State>
    private let broadcast = Broadcast<RequestEvent>(bufferSize: 256)
    /// Whether the handle was created to start at once.
    public let startsImmediately: Bool

    /// Creates a handle around `operation`.
    ///
    /// - Parameters:
    ///   - startImmediately: Whether the operation starts now (the default) or waits for ``start()``.
    ///   - operation: The work; cancelled through Swift task cancellation.
    public init(startImmediately: Bool = true, operation: @escaping Operation) {
        state = Mutex(State(phase: .waiting(operation)))
        startsImmediately = startImmediately
        if startImmediately { start() }
    }

    /// A handle that has already finished with `result`: for forms that fail validation
    /// before anything is sent, and for tests.
    ///
    /// - Parameter result: The value or the error.
    public init(finished result: Result<Value, any Error>) {
        state = Mutex(State(phase: .finished, result: result))
        startsImmediately = true
        broadcast.finish()
    }

    // MARK: - Lifecycle

    /// Starts a handle created with `startImmediately: false`; does nothing otherwise.
    @discardableResult
    public func start() -> Self {
        let operation: Operation? = state.withLock { state in
            guard case .waiting(let operation) = state.phase else { return nil }
            state.phase = .starting
            return operation
        }
        guard let operation else { return self }
        let sink = RequestEventSink { [weak self] event in self?.publish(event) }
        let task = Task { [self] in
            let result: Result<Outcome, any Error>
            do {
                result = .success(try await operation(sink))
            } catch is CancellationError {
                result = .failure(TransportError(.cancelled, message: "The request was cancelled before it completed."))
            } catch {
                result = .failure(error)
            }
            finish(result)
        }
        let cancelledWhileStarting = state.withLock { state in
            guard case .starting = state.phase else { return true }
            state.phase = .running(task)
            return false
        }
        if cancelledWhileStarting { task.cancel() }
        return self
    }

    /// Stops the operation; the handle fails with a `.cancelled` ``TransportError``.
    ///
    /// Cancelling a handle that has finished does nothing.
    public func cancel() {
        let (action, extra): (CancelAction, [@Sendable () -> Void]) = state.withLock { state in
            let extra = state.onCancel
            state.onCancel = []
            switch state.phase {
            case .waiting:
                state.phase = .finished
                return (.failNow, extra)
            case .starting:
                // `start()` sees the change and cancels the task it is creating.
                state.phase = .finished
                return (.none, extra)
            case .running(let task):
                return (.cancelTask(task), extra)
            case .finished:
                return (.none, [])
            }
        }
        for hook in extra { hook() }
        switch action {
        case .none: break
        case .cancelTask(let task): task.cancel()
        case .failNow:
            finish(
                .failure(
                    TransportError(
                        .cancelled, message: "The request was cancelled before it started.",
                        mayHaveReachedServer: false)))
        }
    }

    /// Registers work to run when the handle is cancelled (used to chain cancellation to
    /// the handles a derived handle depends on).
    ///
    /// - Parameter hook: Runs once, on the cancelling thread, if the handle is cancelled
    ///   before it finishes.
    public func onCancel(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCancel.append(hook) }
    }

    // MARK: - Callbacks

    /// Adds a handler for the value; runs after earlier handlers, only on success.
    @discardableResult
    public func success(_ handler: @escaping @Sendable (Value) -> Void) -> Self {
        addHandler { result in if case .success(let value) = result { handler(value) } }
    }

    /// Adds a handler for the error; runs after earlier handlers, only on failure.
    ///
    /// The handler gets a ``RequestFailure``: `failure.message` is a sentence for a person,
    /// `failure.underlying` the error itself.
    @discardableResult
    public func failure(_ handler: @escaping @Sendable (RequestFailure) -> Void) -> Self {
        addHandler { result in if case .failure(let error) = result { handler(RequestFailure(error)) } }
    }

    /// Adds a handler for the result, success or failure; runs after earlier handlers.
    @discardableResult
    public func completion(_ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Self {
        addHandler(handler)
    }

    @discardableResult
    private func addHandler(_ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Self {
        let shouldDrain = state.withLock { state in
            state.handlers.append(handler)
            guard state.result != nil, !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if shouldDrain { drainHandlers() }
        return self
    }

    /// Runs queued handlers one at a time, in order, until none are left.
    private func drainHandlers() {
        while true {
            let next: (handlers: [@Sendable (Result<Value, any Error>) -> Void], result: Result<Value, any Error>)? =
                state.withLock { state in
                    guard let result = state.result, !state.handlers.isEmpty else {
                        state.isDraining = false
                        return nil
                    }
                    defer { state.handlers = [] }
                    return (state.handlers, result)
                }
            guard let next else { return }
            for handler in next.handlers { handler(next.result) }
        }
    }

    // MARK: - Awaiting

    /// The value; throws the failure. Cancelling the awaiting task cancels the request.
    public var value: Value {
        get async throws { try await result.get() }
    }

    /// The result, success or failure. Cancelling the awaiting task cancels the request.
    public var result: Result<Value, any Error> {
        get async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    addHandler { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The result and the response together, with one wait.
    var outcome: (Result<Value, any Error>, ResponseInfo?) {
        get async {
            let result = await self.result
            return (result, state.withLock { $0.response })
        }
    }

    /// The status, headers and metrics of the response, once the handle has finished;
    /// `nil` when it failed before a response arrived.
    public var response: ResponseInfo? {
        get async {
            _ = await result
            return state.withLock { $0.response }
        }
    }

    // MARK: - Events

    /// The handle's events from now on: progress, redirects, retries, and its completion,
    /// after which the sequence ends. Each access is an independent subscription; a
    /// subscription made after the handle finished yields only the completion.
    public var events: AsyncStream<RequestEvent> {
        // Under the state lock, so that a subscription either precedes `finish` (and gets
        // its completion) or follows it (and gets the completion replayed).
        state.withLock { state in
            guard let result = state.result else { return broadcast.subscribe() }
            return broadcast.subscribe(startingWith: .completed(succeeded: result.isSuccess))
        }
    }

    /// Passes every later non-completion event to `observer`, synchronously (how a derived
    /// handle forwards its source's events without a task of its own).
    func observe(_ observer: @escaping @Sendable (RequestEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    private func publish(_ event: RequestEvent) {
        let observers = state.withLock { $0.observers }
        broadcast.yield(event)
        for observer in observers { observer(event) }
    }

    // MARK: - Finishing

    private func finish(_ outcome: Result<Outcome, any Error>) {
        let result = outcome.map(\.value)
        let shouldDrain: Bool = state.withLock { state in
            guard state.result == nil else { return false }
            state.result = result
            state.response = try? outcome.get().response
            state.phase = .finished
            state.onCancel = []
            state.observers = []
            broadcast.yield(.completed(succeeded: result.isSuccess))
            broadcast.finish()
            let shouldDrain = !state.isDraining && !state.handlers.isEmpty
            if shouldDrain { state.isDraining = true }
            return shouldDrain
        }
        if shouldDrain { drainHandlers() }
    }
}

extension RequestHandle {
    /// A handle whose value is this handle's value transformed: how a raw response becomes a
    /// decoded model.
    ///
    /// The new handle starts when this one does (``start()`` on either starts both), forwards
    /// this one's transfer and retry events, and cancelling it cancels this one.
    ///
    /// - Parameter transform: Turns the value (and its response) into the new value; an
    ///   error it throws fails the new handle.
    /// - Returns: The derived handle.
    public func map<NewValue: Sendable>(
        _ transform: @escaping @Sendable (Value, ResponseInfo?) throws -> NewValue
    ) -> RequestHandle<NewValue> {
        let source = self
        let derived = RequestHandle<NewValue>(startImmediately: startsImmediately) { events in
            source.observe { events.send($0) }
            source.start()
            let (result, response) = await source.outcome
            return RequestHandle<NewValue>.Outcome(value: try transform(try result.get(), response), response: response)
        }
        derived.onCancel { source.cancel() }
        return derived
    }
}

/// The status, headers and metrics of the response behind a handle's value.
public struct ResponseInfo: Sendable {
    /// The response head.
    public var head: HTTPResponse
    /// The URL that produced it, after redirects.
    public var url: String
    /// The transfer's timings and counters, when measured.
    public var metrics: TransferMetrics?

    /// Creates the information.
    public init(head: HTTPResponse, url: String, metrics: TransferMetrics?) {
        self.head = head
        self.url = url
        self.metrics = metrics
    }
}

/// A handle for a request whose response is decoded into a value.
public typealias DataRequest<Value: Sendable> = RequestHandle<Value>
/// A handle for a request that sends a body (bytes, a file, a stream or a multipart form).
public typealias UploadRequest<Value: Sendable> = RequestHandle<Value>

/// Something that happened to a request handle.
public enum RequestEvent: Sendable {
    /// A transfer event of the underlying transport: progress, a redirect, metrics.
    case transfer(TransferEvent)
    /// The request is sent again; `attempt` counts from 2.
    case retry(attempt: Int, reason: String)
    /// The handle finished.
    case completed(succeeded: Bool)
}

/// Where an operation reports its events; hand ``transferHandler`` to
/// ``TransferOptions/eventHandler`` to forward the transport's events.
public struct RequestEventSink: Sendable {
    private let emit: @Sendable (RequestEvent) -> Void

    /// Creates a sink.
    ///
    /// - Parameter emit: Receives every event.
    public init(_ emit: @escaping @Sendable (RequestEvent) -> Void) {
        self.emit = emit
    }

    /// Reports an event.
    public func send(_ event: RequestEvent) { emit(event) }

    /// A transfer-event handler that forwards to this sink.
    public var transferHandler: @Sendable (TransferEvent) -> Void {
        let emit = self.emit
        return { emit(.transfer($0)) }
    }
}

extension Result {
    /// Whether this is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
