public import HTTPTypes
import Synchronization

/// The reference handle every send returns: chain callbacks on it, await it, observe its
/// events, cancel it.
///
/// ``DataRequest``, ``UploadRequest`` and Downloads' `DownloadRequest` are this one type under
/// the names the business layer speaks; what differs between them is the operation behind
/// the handle.
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
/// - Handlers of every kind run in the order they were added, one at a time, once per run;
///   a handler added after the request finished runs at once for that outcome. They run on
///   the thread that finished the request (or the one adding them, when already finished),
///   unless the handle has an ``executor`` (`.mainActor`, a queue), which then runs them, in
///   the order added.
/// - A handle starts at once unless it was created with `startImmediately: false`; then it
///   waits for ``start()``.
/// - A handle made with `runsInAwaitingTask: true` (the clients' requests and downloads are)
///   runs its operation in the task that awaits it (``value``, ``result``, ``response``) when
///   one does before the run's own task has begun it, as when the handle is awaited right
///   after it was made: the request then costs no hand-over to another thread and back. A
///   handle nobody awaits, and any other handle, runs in a task of its own, as soon as it
///   starts.
/// - ``cancel()`` stops the operation within milliseconds; the handle then fails with a
///   ``TransportError`` of category `.cancelled`. It never cancels a task that awaits the
///   handle, even one that runs the operation: that run ends through its
///   ``RequestCancellation``, and the code after the `await` goes on uncancelled.
/// - ``reload()`` runs a finished handle's operation again: its handlers, start hooks, cancel
///   hooks, observers and mapped handles all stay registered and run again for the new
///   run, so a screen's chain (feedback, decoding, callbacks) serves a "try again" button
///   as it is.
/// - ``map(_:)`` (and Mapping's `decode`) makes a view of the handle: another handle on the
///   same request, whose value is transformed.
///
/// Handlers and hooks stay registered for as long as the handle lives: a handler that refers
/// to its own handle (to reload it, say) should capture it weakly.
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

    let core: RequestCore
    /// For a handle made by ``map(_:)``, the transform from the request's value to this one's;
    /// `nil` for the handle that made the request.
    private let view: HandleView?
    /// Who this handle's registrations belong to in the core: `0` for the handle that made
    /// the request, a number of its own for each view.
    private let owner: Int
    /// Whether the handle was created to start at once.
    public let startsImmediately: Bool
    /// Values the caller attached for the code around the request (a presenter, a decoder);
    /// a handle derived with ``map(_:)`` keeps them.
    public let userInfo: RequestUserInfo
    /// Where ``success(_:)``, ``failure(_:)`` and ``completion(_:)`` handlers run; `nil` (the
    /// default) for the thread that finished the request. Derived handles keep it.
    public let executor: HandlerExecutor?

    /// Creates a handle around `operation`.
    ///
    /// - Parameters:
    ///   - startImmediately: Whether the operation starts now (the default) or waits for ``start()``.
    ///   - userInfo: Values for the code around the request; none by default.
    ///   - executor: Where handlers run; the finishing thread by default.
    ///   - taskExecutor: The executor the operation's task prefers (an engine's own thread,
    ///     say); Swift's global executor by default.
    ///   - runsInAwaitingTask: Whether a task that awaits the handle may run the operation
    ///     itself, saving the hand-over to the run's own task and back; `false` by default.
    ///     Pass `true` only when everything the operation waits on honours
    ///     ``RequestCancellation`` (Parley's transports and middleware do, and an operation
    ///     that only sends requests through them does): ``cancel()`` then reaches the
    ///     operation through it, without cancelling the awaiting task. A wait that honours only
    ///     task cancellation would not be interrupted until the next one that does.
    ///   - operation: The work; cancelled through Swift task cancellation when it runs in a
    ///     task of its own, through ``RequestCancellation`` as well when it runs in an awaiting
    ///     task.
    public convenience init(
        startImmediately: Bool = true,
        userInfo: RequestUserInfo = RequestUserInfo(),
        executor: HandlerExecutor? = nil,
        taskExecutor: (any TaskExecutor)? = nil,
        runsInAwaitingTask: Bool = false,
        operation: @escaping Operation
    ) {
        self.init(
            startImmediately: startImmediately, userInfo: userInfo, executor: executor,
            core: RequestCore(
                runsInAwaitingTask: runsInAwaitingTask, taskExecutor: taskExecutor,
                operation: TypedOperation(body: operation)))
    }

    /// A handle around `core`, which holds its operation; it starts the operation now when
    /// `startImmediately`.
    init(startImmediately: Bool, userInfo: RequestUserInfo, executor: HandlerExecutor?, core: RequestCore) {
        self.core = core
        view = nil
        owner = 0
        startsImmediately = startImmediately
        self.userInfo = userInfo
        self.executor = executor
        LiveCounts.requestHandles.increment()
        if startImmediately { core.start() }
    }

    /// A handle that has already finished with `result`: for forms that fail validation
    /// before anything is sent, and for tests.
    ///
    /// - Parameter result: The value or the error.
    public init(finished result: Result<Value, any Error>) {
        switch result {
        case .success(let value): core = RequestCore(finished: .success(value))
        case .failure(let error): core = RequestCore(finished: .failure(error))
        }
        view = nil
        owner = 0
        startsImmediately = true
        userInfo = RequestUserInfo()
        executor = nil
        LiveCounts.requestHandles.increment()
    }

    /// A view of `core` through `view`, with registrations of its own.
    private init(
        core: RequestCore, view: HandleView, startsImmediately: Bool, userInfo: RequestUserInfo,
        executor: HandlerExecutor?
    ) {
        self.core = core
        self.view = view
        owner = viewOwners.wrappingAdd(1, ordering: .relaxed).newValue
        self.startsImmediately = startsImmediately
        self.userInfo = userInfo
        self.executor = executor
        core.addHolder()
        LiveCounts.requestHandles.increment()
    }

    deinit {
        // What a view registered goes with it, once the run in progress (if any) is over.
        if view != nil { core.viewEnded(owner: owner) }
        // The last handle of a run nobody awaited launches it: a handle let go runs anyway.
        core.removeHolder()
        LiveCounts.requestHandles.decrement()
    }

    // MARK: - Lifecycle

    /// Starts a handle created with `startImmediately: false`; does nothing otherwise.
    @discardableResult
    public func start() -> Self {
        core.start()
        return self
    }

    /// Runs the operation again, as a new run, once the handle has finished (with a value or
    /// a failure): for a "try again" button, or to refresh what a screen shows.
    ///
    /// A run is one execution of the operation, from its start to its outcome. Reloading
    /// starts a new one (in a new task, or in a task that awaits the handle, as for the first
    /// run), and everything registered on the handle takes part in it as in the first:
    ///
    /// - ``success(_:)``, ``failure(_:)`` and ``completion(_:)`` handlers stay registered and
    ///   run once per run, in the order added, one at a time, for that run's outcome.
    /// - ``onStart(_:)`` hooks run again as the new run starts, and ``onCancel(_:)`` hooks
    ///   when it is cancelled; ``observe(_:)`` observers receive its events.
    /// - Handles made with ``map(_:)`` run again too, being views of the same request: their
    ///   start hooks run, and when this run ends their handlers run for its outcome,
    ///   transformed.
    /// - ``value``, ``result`` and ``response`` awaited during the run return its outcome;
    ///   ``response`` afterwards is this run's (`nil` when it failed before a response).
    /// - ``events`` subscriptions end with each run's completion: subscribe again for the
    ///   next run.
    ///
    /// Reloading a handle that was never started starts it, like ``start()``. Reloading a
    /// handle whose run is in progress does nothing, nor does reloading one created with
    /// ``init(finished:)``, which has no operation to run. Reloading a handle made with
    /// ``map(_:)`` reloads the request it is a view of (through any number of ``map(_:)``s),
    /// which runs every view of it again.
    ///
    /// When a handler reloads the handle it runs for, the new run starts once every handler
    /// has run for the outcome before, so that a loading mask taken down by one handler is
    /// put back up by the new run, not before.
    ///
    /// - Returns: This handle.
    @discardableResult
    public func reload() -> Self {
        core.reload()
        return self
    }

    /// Stops the run in progress; it fails with a `.cancelled` ``TransportError``.
    ///
    /// Cancelling a handle that has finished does nothing; one cancelled can still be
    /// reloaded with ``reload()``. The cancel hooks run, then the operation is stopped: its own
    /// task is cancelled, or, when it runs in a task that awaits the handle (see ``value``),
    /// its ``RequestCancellation`` is, which stops the transfer or wait in progress and leaves
    /// that task uncancelled: the code after the `await` goes on as it would after any
    /// failure. (Cancelling the awaiting task itself still cancels the handle.)
    public func cancel() {
        core.cancel()
    }

    /// Registers work to run when the handle is cancelled, such as cancelling other work
    /// started on its behalf (a second request, a timer).
    ///
    /// - Parameter hook: Runs on the cancelling thread each time a run in progress is
    ///   cancelled (once per run); not when a finished handle is cancelled.
    public func onCancel(_ hook: @escaping @Sendable () -> Void) {
        core.onCancel(owner: owner, hook)
    }

    /// Registers work to run when the operation starts: at once when it has started (or
    /// finished) already, otherwise on the thread that calls ``start()``; and again each
    /// time ``reload()`` starts a new run.
    ///
    /// A handle made with ``map(_:)`` starts when its source does. Presenters use this to show
    /// a loading mask only while a deferred request actually runs.
    ///
    /// - Parameter hook: Runs once per run.
    public func onStart(_ hook: @escaping @Sendable () -> Void) {
        core.whenStarted(owner: owner, hook)
    }

    // MARK: - Callbacks

    /// Adds a handler for the value; runs after earlier handlers, only on success, once per
    /// run (at once when the handle has finished with a value).
    @discardableResult
    public func success(_ handler: @escaping @Sendable (Value) -> Void) -> Self {
        let run = executor.map { executor in { @Sendable (value: Value) in executor.execute { handler(value) } } }
        let deliver = run ?? handler
        core.addHandler(owner: owner, view: view) { result in
            if case .success(let value) = result { deliver(Self.unbox(value)) }
        }
        return self
    }

    /// Adds a handler for the error; runs after earlier handlers, only on failure, once per
    /// run (at once when the handle has finished with a failure).
    ///
    /// The handler gets a ``RequestFailure``: `failure.message` is a sentence for a person,
    /// `failure.underlying` the error itself.
    @discardableResult
    public func failure(_ handler: @escaping @Sendable (RequestFailure) -> Void) -> Self {
        let run = executor.map { executor in
            { @Sendable (failure: RequestFailure) in executor.execute { handler(failure) } }
        }
        let deliver = run ?? handler
        core.addHandler(owner: owner, view: view) { result in
            if case .failure(let error) = result { deliver(RequestFailure(error)) }
        }
        return self
    }

    /// Adds a handler for the result, success or failure; runs after earlier handlers, once
    /// per run (at once when the handle has finished).
    @discardableResult
    public func completion(_ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Self {
        let run = executor.map { executor in
            { @Sendable (result: Result<Value, any Error>) in executor.execute { handler(result) } }
        }
        let deliver = run ?? handler
        core.addHandler(owner: owner, view: view) { result in deliver(Self.unbox(result)) }
        return self
    }

    // MARK: - Awaiting

    /// The value; throws the failure. Cancelling the awaiting task cancels the request.
    ///
    /// Awaited during a run, the outcome of that run; on a finished handle, the latest
    /// outcome, at once. When the handle was made with `runsInAwaitingTask: true` and the
    /// run's own task has not begun the operation yet (the handle was awaited right after it
    /// started), the awaiting task runs it, and the run's task finds it claimed and does
    /// nothing: the request is sent from this task, and its answer comes back to it without a
    /// hand-over to another task. The handlers still run first, on this task's thread when it
    /// hands the outcome out. ``cancel()`` then ends the operation without cancelling this
    /// task.
    public var value: Value {
        get async throws { Self.unbox(try await core.result(view: view, owner: owner).get()) }
    }

    /// The result, success or failure. Cancelling the awaiting task cancels the request.
    ///
    /// Awaited during a run, the outcome of that run; on a finished handle, the latest
    /// outcome, at once. Like ``value``, it runs the operation in the awaiting task when the
    /// run's own task has not begun it yet.
    public var result: Result<Value, any Error> {
        get async { Self.unbox(await core.result(view: view, owner: owner)) }
    }

    /// The status, headers and metrics of the response, once the handle has finished: that
    /// of the latest run, `nil` when it failed before a response arrived. Like ``value``, it
    /// runs the operation in the awaiting task when the run's own task has not begun it yet.
    ///
    /// Read where the caller runs: settled (the usual case after ``value``), the handle has
    /// nothing to wait for or run, and the read needs no hop to another executor and back.
    /// Otherwise the wait, and the operation if this task runs it, leave the caller's actor as
    /// any other await of the handle does.
    public nonisolated(nonsending) var response: ResponseInfo? {
        get async {
            let settled = core.settledResponse
            if settled.isSettled { return settled.response }
            return await awaitedResponse()
        }
    }

    /// The response of the run in progress (or the next), once it has ended: ``response``
    /// when the handle is not settled.
    @concurrent
    private func awaitedResponse() async -> ResponseInfo? {
        _ = await core.result(view: nil, owner: owner)
        return core.response
    }

    // MARK: - Events

    /// The handle's events from now on: progress, redirects, retries, and the completion of
    /// the run in progress, after which the sequence ends. Each access is an independent
    /// subscription; a subscription made after the handle finished yields only the
    /// completion, and one for a later run is made once ``reload()`` has started it.
    ///
    /// A handle made with ``map(_:)`` has its source's events: its completion says whether
    /// the request succeeded, before any transform.
    public var events: AsyncStream<RequestEvent> {
        core.events
    }

    /// Passes every later event but the completion to `observer`, synchronously, on the
    /// thread that reports it (for a transfer's progress, the engine's own thread).
    ///
    /// Unlike ``events`` this needs no task to consume it, so it suits presenters that only
    /// record the newest state under a lock; keep `observer` that quick. The observer stays
    /// registered: it receives the events of every later run too, ``reload()``s included.
    /// Completions are not passed: pair it with ``completion(_:)`` to learn the end of each
    /// run.
    ///
    /// - Parameter observer: Receives progress, redirect, metrics and retry events.
    public func observe(_ observer: @escaping @Sendable (RequestEvent) -> Void) {
        core.observe(owner: owner, observer)
    }

    // MARK: - Boxing

    /// The operation as the core runs it, its value boxed as it returns; a struct, so that
    /// wrapping the operation allocates nothing (see ``BoxedOperation``).
    private struct TypedOperation: BoxedOperation {
        let body: RequestHandle.Operation

        nonisolated(nonsending) func run(_ events: RequestEventSink) async throws
            -> (value: any Sendable, response: ResponseInfo?)
        {
            let outcome = try await body(events)
            return (outcome.value, outcome.response)
        }
    }

    /// A view's transform as its ``HandleView`` applies it to the boxed value; a struct, so
    /// that wrapping the transform allocates nothing (see ``HandleView/Transform``).
    private struct TypedTransform<NewValue: Sendable>: HandleView.Transform {
        let body: @Sendable (Value, ResponseInfo?) throws -> NewValue

        func apply(_ value: any Sendable, _ response: ResponseInfo?) throws -> any Sendable {
            try body(RequestHandle.unbox(value), response)
        }
    }

    /// The value the core boxed; the core only ever holds values of this handle's type.
    ///
    /// Always inlined: a call from code that is not specialised (a view's transform, say)
    /// would otherwise look up this class's metadata at run time, on every request, to pass it.
    ///
    /// The boxed value's type is compared with `Value` (`sameTypeValue(_:as:)`), where a forced
    /// cast from the existential costs several hundred instructions on every request. The core
    /// boxes each value where its type is `Value`, so the box records `Value` itself (for an
    /// existential or a class `Value` too) and the comparison answers; the cast is the general
    /// answer for a box made any other way.
    @inline(__always)
    static func unbox(_ value: any Sendable) -> Value {
        func opened<Boxed>(_ boxed: Boxed) -> Value {
            if let same = sameTypeValue(boxed, as: Value.self) { return same }
            // swift-format-ignore: NeverForceUnwrap
            return boxed as! Value
        }
        return opened(value)
    }

    @inline(__always)
    static func unbox(_ result: RequestCore.Erased) -> Result<Value, any Error> {
        switch result {
        case .success(let value): .success(unbox(value))
        case .failure(let error): .failure(error)
        }
    }
}

extension RequestHandle {
    /// A handle whose value is this handle's value transformed: how a raw response becomes a
    /// decoded model.
    ///
    /// The new handle is a view of the same request, not a request of its own: it starts,
    /// reloads and is cancelled with this one (``start()``, ``reload()`` or ``cancel()`` on
    /// either does it to both), and has the same events, start hooks, cancel hooks and
    /// observers' events. Only its value differs. No task, lock or state is made for it:
    /// awaiting it runs the operation in the awaiting task as awaiting this one would.
    ///
    /// The transform runs once per outcome of the request, when the new handle's handlers or
    /// awaits first need it, on the thread that hands that outcome out (the one that finished
    /// the request, or the one adding a handler to a finished handle); the others reuse its
    /// value. Keep it quick. An outcome nobody asks the new handle for is not transformed.
    ///
    /// What is registered on the new handle (handlers, hooks, observers) goes with it: while
    /// nobody keeps the new handle, its handlers still run for the run in progress (or, for a
    /// handle mapped from one created with `startImmediately: false`, for none if nobody
    /// kept it until the start), but not for later runs. Keep the new handle for them to run
    /// again when this one is reloaded. The new handle keeps the request for as long as it
    /// lives.
    ///
    /// - Parameter transform: Turns the value (and its response) into the new value; an
    ///   error it throws fails the new handle (not this one).
    /// - Returns: The new handle.
    public func map<NewValue: Sendable>(
        _ transform: @escaping @Sendable (Value, ResponseInfo?) throws -> NewValue
    ) -> RequestHandle<NewValue> {
        makeView(through: TypedTransform(body: transform))
    }

    /// A view of this handle whose value `transform` makes (see ``map(_:)``).
    ///
    /// - Parameters:
    ///   - handle: The new handle's type. A caller that has it at hand, specialised for the new
    ///     value, passes it: made from the value type in code that is not specialised, it is
    ///     looked up at run time.
    ///   - transform: The new handle's transform.
    func makeView<NewValue: Sendable>(
        as handle: RequestHandle<NewValue>.Type = RequestHandle<NewValue>.self,
        through transform: some HandleView.Transform
    ) -> RequestHandle<NewValue> {
        handle.init(
            core: core, view: HandleView(parent: view, transform: transform), startsImmediately: startsImmediately,
            userInfo: userInfo, executor: executor)
    }

    /// Adds a handler for every outcome, as ``completion(_:)`` does, on the finishing thread;
    /// with `seesStops`, for the runs a ``RequestStop`` ended too, which ``completion(_:)``
    /// handlers do not see.
    func addOutcomeHandler(seesStops: Bool, _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        core.addHandler(seesStops: seesStops, owner: owner, view: view) { handler(Self.unbox($0)) }
    }

    /// Whether the latest run has ended and its outcome has been handed out, with no run begun
    /// or queued since.
    var isSettled: Bool { core.isSettled }
}

/// Numbers the views of handles (`RequestHandle.map(_:)`) so that each view's registrations in
/// the core it shares can be told from the others'; `0` is the handle that made the core.
private let viewOwners = Atomic<Int>(0)

/// The status, headers and metrics of the response behind a handle's value.
///
/// The fields live in one shared, immutable box, copied only when a copy is changed: a handle
/// hands its response through its outcome, its state machine and each awaiting caller, and a
/// value of one reference is copied by a retain, where the fields themselves (a head, a URL,
/// the metrics and their strings) were copied and destroyed field by field through the
/// runtime at every step.
public struct ResponseInfo: Sendable {
    /// The response head.
    ///
    /// An engine's head is built from the lines it received when it is first read here or on
    /// the response, so a caller that never reads it does not pay for its fields.
    public var head: HTTPResponse {
        get { fields.lazyHead.response }
        set { fields = Fields(lazyHead: LazyResponseHead(newValue), url: url, metrics: metrics) }
    }
    /// The URL that produced it, after redirects.
    public var url: String {
        get { fields.url }
        set { fields = Fields(lazyHead: fields.lazyHead, url: newValue, metrics: metrics) }
    }
    /// The transfer's timings and counters, when measured.
    public var metrics: TransferMetrics? {
        get { fields.metrics }
        set { fields = Fields(lazyHead: fields.lazyHead, url: url, metrics: newValue) }
    }

    /// The fields, shared by copies; a change makes a box of this copy's own.
    private var fields: Fields

    /// Creates the information.
    public init(head: HTTPResponse, url: String, metrics: TransferMetrics?) {
        fields = Fields(lazyHead: LazyResponseHead(head), url: url, metrics: metrics)
    }

    /// The information of a response collected whole, sharing its head unbuilt.
    ///
    /// - Parameter response: The response.
    package init(_ response: DataResponse) {
        fields = Fields(lazyHead: response.lazyHead, url: response.url, metrics: response.metrics)
    }

    /// The box the fields live in; never changed once made.
    private final class Fields: Sendable {
        let lazyHead: LazyResponseHead
        let url: String
        let metrics: TransferMetrics?

        init(lazyHead: LazyResponseHead, url: String, metrics: TransferMetrics?) {
            self.lazyHead = lazyHead
            self.url = url
            self.metrics = metrics
        }
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
    /// The request is about to be sent again: the attempt (counting from 2 for the first
    /// retry), why, and how long it waits first when known.
    case retry(RetryEvent)
    /// How many of a known number of parts are done: what a handle that stands for several
    /// requests (a batch) reports as each of them finishes, "7 of 20 done".
    case count(CountProgress)
    /// The handle finished.
    case completed(succeeded: Bool)
}

/// Where an operation reports its events; hand ``transferHandler`` to
/// ``TransferOptions/eventHandler`` to forward the transport's events.
public struct RequestEventSink: Sendable {
    /// Receives every event, for a sink made with ``init(_:)``.
    private let emit: (@Sendable (RequestEvent) -> Void)?
    /// The core of the handle whose operation reports here, for the sink a handle makes: held
    /// strongly, which costs no closure and no weak reference per run; the run holds the core
    /// anyway. Only the functions made for a request's options (``transferHandler``,
    /// ``sender``), which outlive the run where a request is kept, hold it weakly.
    private let core: RequestCore?

    /// Whether anything took the handle's events when the operation began: an observer
    /// (``RequestHandle/observe(_:)``) or a subscription to ``RequestHandle/events``. When
    /// `false`, an operation may leave the transport's events out (a transfer without an event
    /// handler spares its progress reports); an observer or subscriber that comes later gets
    /// the events of the next run. Always `true` for a sink made with ``init(_:)``.
    public let isObserved: Bool

    /// Creates a sink.
    ///
    /// - Parameter emit: Receives every event.
    public init(_ emit: @escaping @Sendable (RequestEvent) -> Void) {
        self.emit = emit
        core = nil
        isObserved = true
    }

    /// The sink of a run of `core`, saying whether anything took the events as it began.
    init(core: RequestCore, observed: Bool) {
        emit = nil
        self.core = core
        isObserved = observed
    }

    /// Reports an event.
    public func send(_ event: RequestEvent) {
        if let core { core.publish(event) } else { emit?(event) }
    }

    /// A transfer-event handler that forwards to this sink; a transfer's
    /// ``TransferEvent/retry(_:)`` becomes the handle's ``RequestEvent/retry(_:)``.
    ///
    /// The handler goes into a request's options, which a transport or a middleware may keep
    /// after the request has ended (a test double that records what it was sent, a log of
    /// recent requests); so it holds a handle's core weakly, lest the core, its operation and
    /// everything the operation holds (the client, and the transport itself) stay alive with
    /// the request. While the run lasts, the run holds the core.
    public var transferHandler: @Sendable (TransferEvent) -> Void {
        // Each event crosses one closure: the transfer reports progress through it.
        if let core {
            return { [weak core] event in core?.publish(Self.requestEvent(event)) }
        }
        let emit = emit
        return { event in emit?(Self.requestEvent(event)) }
    }

    /// ``send(_:)`` as a function for a closure that a request's options carry, which may
    /// outlive the run (see ``transferHandler``): it holds a handle's core weakly.
    public var sender: @Sendable (RequestEvent) -> Void {
        if let core {
            return { [weak core] event in core?.publish(event) }
        }
        let emit = emit
        return { event in emit?(event) }
    }

    /// The handle's event for a transfer's.
    private static func requestEvent(_ event: TransferEvent) -> RequestEvent {
        if case .retry(let retry) = event { .retry(retry) } else { .transfer(event) }
    }
}
