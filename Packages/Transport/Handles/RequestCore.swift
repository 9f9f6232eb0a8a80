import Synchronization

/// The state machine behind every ``RequestHandle``, with the value boxed.
///
/// Not generic, so that its locked state and its handler lists have one layout whatever
/// the handle's value: a generic class used across modules runs unspecialised, and every
/// access to a generic type inside it looks its metadata up at run time.
final class RequestCore: Sendable {
    /// The value, boxed.
    typealias Erased = Result<any Sendable, any Error>
    /// The work behind a handle, its value boxed.
    typealias Operation =
        @Sendable (_ events: RequestEventSink) async throws -> (
            value: any Sendable, response: ResponseInfo?
        )
    /// Turns a source's result into a derived handle's value.
    typealias Transform = @Sendable (_ result: Erased, _ response: ResponseInfo?) throws -> any Sendable

    private enum Phase {
        case waiting(Operation)
        /// A derived handle not yet started: starting it starts its source.
        case waitingForSource(@Sendable () -> Void)
        case starting
        case running(Task<Void, Never>)
        /// A derived handle whose source runs: it finishes from the source's completion.
        case following
        case finished
    }

    private struct State {
        var phase: Phase
        var result: Erased?
        var response: ResponseInfo?
        var handlers: [@Sendable (Erased) -> Void] = []
        var isDraining = false
        var observers: [@Sendable (RequestEvent) -> Void] = []
        var onCancel: [@Sendable () -> Void] = []
        var onStart: [@Sendable () -> Void] = []
        /// For a derived handle: subscribes it to its source's events. Run by the first
        /// subscription or observer, so that events nobody listens to are not forwarded.
        var connectToSource: (@Sendable () -> Void)?
        /// Created by the first subscription to ``events``, so that a handle nobody observes
        /// pays for no fan-out.
        var broadcast: Broadcast<RequestEvent>?
    }

    private enum StartAction {
        case none
        case run(Operation, hooks: [@Sendable () -> Void])
        case startSource(@Sendable () -> Void, hooks: [@Sendable () -> Void])
    }

    private enum CancelAction {
        case none
        case cancelTask(Task<Void, Never>)
        case failNow
    }

    private let state: Mutex<State>

    /// A core that runs `operation` once started.
    init(operation: @escaping Operation) {
        state = Mutex(State(phase: .waiting(operation)))
    }

    /// A core that has already finished with `result`.
    init(finished result: Erased) {
        state = Mutex(State(phase: .finished, result: result))
    }

    /// A core that finishes when another one does (see ``derive(startingImmediately:_:)``):
    /// it has no task of its own, and starting it starts the source.
    private init(derivedStartingImmediately startImmediately: Bool, startSource: @escaping @Sendable () -> Void) {
        state = Mutex(State(phase: startImmediately ? .following : .waitingForSource(startSource)))
    }

    // MARK: - Lifecycle

    /// Starts the operation (or, for a derived core, its source); does nothing when it has
    /// started already.
    func start() {
        let action: StartAction = state.withLock { state in
            switch state.phase {
            case .waiting(let operation):
                state.phase = .starting
                defer { state.onStart = [] }
                return .run(operation, hooks: state.onStart)
            case .waitingForSource(let startSource):
                state.phase = .following
                defer { state.onStart = [] }
                return .startSource(startSource, hooks: state.onStart)
            case .starting, .running, .following, .finished:
                return .none
            }
        }
        let operation: Operation
        switch action {
        case .none:
            return
        case .startSource(let startSource, let hooks):
            for hook in hooks { hook() }
            startSource()
            return
        case .run(let work, let hooks):
            for hook in hooks { hook() }
            operation = work
        }
        let sink = RequestEventSink { [weak self] event in self?.publish(event) }
        let task = Task { [self] in
            let result: Result<(value: any Sendable, response: ResponseInfo?), any Error>
            do {
                result = .success(try await operation(sink))
            } catch {
                result = .failure(Self.normalized(error))
            }
            finish(result)
        }
        let cancelledWhileStarting = state.withLock { state in
            guard case .starting = state.phase else { return true }
            state.phase = .running(task)
            return false
        }
        if cancelledWhileStarting { task.cancel() }
    }

    /// Stops the operation; the core fails with a `.cancelled` ``TransportError``.
    func cancel() {
        let (action, extra): (CancelAction, [@Sendable () -> Void]) = state.withLock { state in
            let extra = state.onCancel
            state.onCancel = []
            switch state.phase {
            case .waiting, .waitingForSource:
                state.phase = .finished
                return (.failNow, extra)
            case .following:
                // The hooks cancel the source, whose completion finishes this handle.
                return (.none, extra)
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

    /// Registers work to run once, on the cancelling thread, if the core is cancelled
    /// before it finishes.
    func onCancel(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { state in
            guard state.result == nil else { return }
            state.onCancel.append(hook)
        }
    }

    /// Runs `hook` when the operation starts, or at once when it has started (or finished)
    /// already.
    func whenStarted(_ hook: @escaping @Sendable () -> Void) {
        let startedAlready = state.withLock { state in
            switch state.phase {
            case .waiting, .waitingForSource:
                state.onStart.append(hook)
                return false
            case .starting, .running, .following, .finished:
                return true
            }
        }
        if startedAlready { hook() }
    }

    /// Marks a derived handle started because its source started (through the source's own
    /// ``start()``), so that handles derived from it in turn are kept alive too.
    private func sourceDidStart() {
        let hooks: [@Sendable () -> Void] = state.withLock { state in
            guard case .waitingForSource = state.phase else { return [] }
            state.phase = .following
            defer { state.onStart = [] }
            return state.onStart
        }
        for hook in hooks { hook() }
    }

    // MARK: - Callbacks

    /// Adds a handler for the result; runs after earlier handlers, at once when finished.
    func addHandler(_ handler: @escaping @Sendable (Erased) -> Void) {
        let shouldDrain = state.withLock { state in
            state.handlers.append(handler)
            guard state.result != nil, !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if shouldDrain { drainHandlers() }
    }

    /// Runs queued handlers one at a time, in order, until none are left.
    private func drainHandlers() {
        while true {
            let next: (handlers: [@Sendable (Erased) -> Void], result: Erased)? =
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

    /// The result, once finished. Cancelling the awaiting task cancels the core.
    var result: Erased {
        get async {
            await withTaskCancellationHandler {
                // Unsafe is sound here: `addHandler` runs every handler exactly once.
                await withUnsafeContinuation { continuation in
                    addHandler { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The response, once finished.
    var response: ResponseInfo? {
        state.withLock { $0.response }
    }

    // MARK: - Events

    /// The events from now on; see ``RequestHandle/events``.
    var events: AsyncStream<RequestEvent> {
        // Under the state lock, so that a subscription either precedes `finish` (and gets
        // its completion) or follows it (and gets the completion replayed).
        let stream = state.withLock { state in
            if let result = state.result {
                let (stream, continuation) = AsyncStream.makeStream(of: RequestEvent.self)
                continuation.yield(.completed(succeeded: result.isSuccess))
                continuation.finish()
                return stream
            }
            if let broadcast = state.broadcast { return broadcast.subscribe() }
            // Created on first use: a handle nobody observes pays for no fan-out.
            let broadcast = Broadcast<RequestEvent>(bufferSize: 256)
            state.broadcast = broadcast
            return broadcast.subscribe()
        }
        connectToSourceIfNeeded()
        return stream
    }

    /// Forwards the source's events to a derived handle from now on, once.
    private func connectToSourceIfNeeded() {
        let connect = state.withLock { state in
            defer { state.connectToSource = nil }
            return state.connectToSource
        }
        connect?()
    }

    /// Passes every later non-completion event to `observer`, synchronously (how a derived
    /// handle forwards its source's events without a task of its own). Does nothing once
    /// the handle has finished.
    func observe(_ observer: @escaping @Sendable (RequestEvent) -> Void) {
        let added = state.withLock { state in
            guard state.result == nil else { return false }
            state.observers.append(observer)
            return true
        }
        if added { connectToSourceIfNeeded() }
    }

    private func publish(_ event: RequestEvent) {
        let (observers, broadcast) = state.withLock { ($0.observers, $0.broadcast) }
        broadcast?.yield(event)
        for observer in observers { observer(event) }
    }

    // MARK: - Finishing

    private func finish(_ outcome: Result<(value: any Sendable, response: ResponseInfo?), any Error>) {
        let result = outcome.map { $0.value }
        let shouldDrain: Bool = state.withLock { state in
            guard state.result == nil else { return false }
            state.result = result
            state.response = try? outcome.get().response
            state.phase = .finished
            state.onCancel = []
            state.onStart = []
            state.observers = []
            state.connectToSource = nil
            if let broadcast = state.broadcast {
                broadcast.yield(.completed(succeeded: result.isSuccess))
                broadcast.finish()
                state.broadcast = nil
            }
            let shouldDrain = !state.isDraining && !state.handlers.isEmpty
            if shouldDrain { state.isDraining = true }
            return shouldDrain
        }
        if shouldDrain { drainHandlers() }
    }

    /// A task's cancellation as a ``TransportError``; any other error as it is.
    private static func normalized(_ error: any Error) -> any Error {
        guard error is CancellationError else { return error }
        return TransportError(.cancelled, message: "The request was cancelled before it completed.")
    }
}

extension RequestCore {
    /// A core finished by this one's completion handler with `transform`'s value, on the
    /// thread that finished this one; see ``RequestHandle/map(_:)``.
    func derive(startingImmediately: Bool, _ transform: @escaping Transform) -> RequestCore {
        let derived = RequestCore(derivedStartingImmediately: startingImmediately, startSource: { [self] in start() })
        // Until this core starts, it refers to the derived one weakly, so that a deferred
        // pair nobody starts is freed; once it starts, strongly, so that the handlers of a
        // derived handle nobody keeps still run.
        let link = DerivedLink(derived)
        whenStarted { link.retain()?.sourceDidStart() }
        // Events are forwarded from the first subscription to the derived handle's events on.
        derived.state.withLock { state in
            state.connectToSource = { [self] in observe { event in link.target?.publish(event) } }
        }
        // `unowned`: this core runs its own handlers, so it is alive whenever this one runs.
        addHandler { [unowned self] result in
            guard let derived = link.target else { return }
            let response = self.response
            let outcome = Result { () throws -> (value: any Sendable, response: ResponseInfo?) in
                (try transform(result, response), response)
            }
            derived.finish(outcome.mapError(RequestCore.normalized))
            link.release()
        }
        derived.onCancel { [self] in cancel() }
        return derived
    }
}

/// The reference a source handle holds to a handle derived from it: weak until the source
/// starts, strong from then until the source finishes.
private final class DerivedLink: Sendable {
    private struct State {
        weak var weakTarget: RequestCore?
        var strongTarget: RequestCore?
    }

    private let state: Mutex<State>

    init(_ target: RequestCore) {
        state = Mutex(State(weakTarget: target, strongTarget: nil))
    }

    /// The derived handle, if it is still alive.
    var target: RequestCore? {
        state.withLock { $0.strongTarget ?? $0.weakTarget }
    }

    /// Keeps the derived handle alive; returns it, if it still was.
    func retain() -> RequestCore? {
        state.withLock { state in
            state.strongTarget = state.weakTarget
            return state.strongTarget
        }
    }

    /// Lets the derived handle go.
    func release() {
        state.withLock { $0.strongTarget = nil }
    }
}

extension Result {
    /// Whether this is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
