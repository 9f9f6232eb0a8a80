/// The shell around every ``RequestHandle``'s state machine, with the value boxed.
///
/// Not generic, so that its locked state and its handler lists have one layout whatever
/// the handle's value: a generic class used across modules runs unspecialised, and every
/// access to a generic type inside it looks its metadata up at run time.
///
/// The transitions (what a start, a reload, a cancel, a finish, a new handler or a source's
/// run does to the state, and in what order the handlers and start hooks run) are a
/// ``RequestCoreMachine``, a value held inline in the lock. Each method here takes the lock
/// for one event of the machine and, once it has let go, performs the action the event
/// returned: it runs hooks and handlers, launches and cancels the run's task, and resumes
/// awaits. Two effects stay under the lock, because other threads' transitions must see
/// them in order: a derived core switching the reference its source holds to it, and a
/// finished run completing the subscriptions to its events.
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

    /// What the machine holds for a core: its task, its closures, its event fan-out.
    ///
    /// Each closure is wrapped in a struct of its own: a function type given as a generic
    /// argument is held in its most general form, and converting a closure to it and back
    /// costs a thunk, an allocation, each way.
    private enum Live: RequestCoreMachineTypes {
        /// The task of a run.
        typealias RunTask = Task<Void, Never>
        /// The value, boxed, or the error.
        typealias Outcome = Erased
        /// The response.
        typealias Response = ResponseInfo
        /// A handler, an await's among them.
        typealias Handler = RequestCore.Handler
        /// A start or cancel hook.
        typealias Hook = RequestCore.Hook
        /// Tells a derived core that a run begins (see ``RequestCore/sourceBegan(run:)``).
        typealias Follower = RequestCore.Follower
        /// An observer (see ``RequestCore/observe(_:)``).
        typealias Observer = RequestCore.Observer
        /// Subscribes a derived core to its source's events.
        typealias Connector = RequestCore.Hook
        /// The subscriptions to ``RequestCore/events`` during a run.
        typealias Fanout = Broadcast<RequestEvent>
    }

    /// A handler for outcomes.
    private struct Handler: Sendable {
        /// Runs the handler.
        let run: @Sendable (Erased) -> Void
    }

    /// A hook, or a derived core's subscription to its source's events.
    private struct Hook: Sendable {
        /// Runs the hook.
        let run: @Sendable () -> Void
    }

    /// Tells a derived core that a run of its source begins.
    private struct Follower: Sendable {
        /// Tells it, with the number the run's outcome will have.
        let run: @Sendable (Int) -> Void
    }

    /// An observer of events.
    private struct Observer: Sendable {
        /// Passes it an event.
        let run: @Sendable (RequestEvent) -> Void
    }

    /// The machine, filled with this core's values.
    private typealias Machine = RequestCoreMachine<Live>

    /// One-shot handlers (awaits) that have had their outcome, resumed once the drainer has
    /// let go, so that code after an `await` finds the handle idle and adding a handler runs
    /// it at once.
    private struct Resumptions {
        /// The first await resumed, held inline: most handles have one at most.
        private var first: (body: @Sendable (Erased) -> Void, result: Erased)?
        /// The others, in order.
        private var rest: [(body: @Sendable (Erased) -> Void, result: Erased)] = []

        /// Resumes `body` with `result` when ``runAll()`` runs.
        mutating func append(_ body: @escaping @Sendable (Erased) -> Void, _ result: Erased) {
            if first == nil { first = (body, result) } else { rest.append((body, result)) }
        }

        /// Resumes the awaits, in order.
        func runAll() {
            if let first { first.body(first.result) }
            for resumption in rest { resumption.body(resumption.result) }
        }
    }

    /// The handle's state.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state: PThreadMutex<Machine>
    /// The work of every run; `nil` for a derived or an already finished core.
    private let operation: Operation?
    /// The executor the task of each run prefers; `nil` for the global executor.
    private let taskExecutor: (any TaskExecutor)?
    /// For a derived core, the core it follows: starting or reloading it does that to the source.
    private let source: RequestCore?
    /// For a derived core, how its source refers to it: strongly while it runs, so that the
    /// handlers of a derived handle nobody keeps still run.
    private let link: DerivedLink?

    /// A core that runs `operation` once started, and again on each reload, each run in a
    /// task that prefers `taskExecutor` (the global executor when `nil`).
    init(taskExecutor: (any TaskExecutor)? = nil, operation: @escaping Operation) {
        self.operation = operation
        self.taskExecutor = taskExecutor
        source = nil
        link = nil
        state = PThreadMutex(Machine())
        LiveCounts.requestCores.increment()
    }

    /// A core that has already finished with `result`, and cannot run.
    init(finished result: Erased) {
        operation = nil
        taskExecutor = nil
        source = nil
        link = nil
        state = PThreadMutex(Machine(finished: result))
        LiveCounts.requestCores.increment()
    }

    /// A core that finishes when `source` does (see ``derive(startingImmediately:_:)``): it
    /// has no task of its own, and starting or reloading it does that to the source.
    private init(derivedFrom source: RequestCore, startingImmediately startImmediately: Bool) {
        operation = nil
        taskExecutor = nil
        self.source = source
        link = DerivedLink()
        state = PThreadMutex(Machine(derivedStartingImmediately: startImmediately))
        LiveCounts.requestCores.increment()
        link?.attach(self)
    }

    deinit {
        LiveCounts.requestCores.decrement()
    }

    // MARK: - Lifecycle

    /// Starts the operation (or, for a derived core, its source); does nothing when it has
    /// started already.
    func start() {
        if let source {
            // The source tells this core as its run begins.
            if state.withLock({ $0.isWaitingForSource }) { source.start() }
            return
        }
        guard operation != nil else { return }
        perform(state.withLock { $0.start() })
    }

    /// Runs the operation again once the previous run has finished (or for the first time,
    /// like ``start()``); does nothing during a run. A derived core reloads its source.
    func reload() {
        if let source {
            source.reload()
            return
        }
        guard operation != nil else { return }
        perform(state.withLock { $0.reload() })
    }

    /// Tells the followers that a run begins and, when it begins now, runs its start hooks
    /// and launches its task.
    private func perform(_ action: Machine.StartAction) {
        switch action {
        case .none:
            return
        case .announce(let followers, let number):
            for follower in followers { follower.run(number) }
        case .begin(let followers, let hooks, let number):
            for follower in followers { follower.run(number) }
            for hook in hooks { hook.run() }
            launch(run: number)
        }
    }

    /// Creates the task of run number `run`, whose start hooks have run; nothing for a core
    /// without an operation.
    private func launch(run: Int) {
        guard let operation else { return }
        let sink = RequestEventSink { [weak self] event in self?.publish(event) }
        let task = Task(executorPreference: taskExecutor) { [self] in
            let result: Result<(value: any Sendable, response: ResponseInfo?), any Error>
            do {
                result = .success(try await operation(sink))
            } catch {
                result = .failure(Self.normalized(error))
            }
            finish(result)
        }
        switch state.withLock({ $0.launched(task, run: run) }) {
        case .none: break
        case .cancelTask: task.cancel()
        }
    }

    /// Stops the run in progress; it fails with a `.cancelled` ``TransportError``.
    func cancel() {
        switch state.withLock({ $0.cancel() }) {
        case .none:
            break
        case .runHooks(let hooks):
            for hook in hooks { hook.run() }
        case .cancelTask(let task, let hooks):
            for hook in hooks { hook.run() }
            task.cancel()
        case .fail(let hooks):
            for hook in hooks { hook.run() }
            finish(
                .failure(
                    TransportError(
                        .cancelled, message: "The request was cancelled before it started.",
                        mayHaveReachedServer: false)))
        }
    }

    /// Registers work to run on the cancelling thread each time a run in progress is cancelled.
    func onCancel(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.addCancelHook(Hook(run: hook)) }
    }

    /// Runs `hook` each time a run starts, and at once when one has started (or finished)
    /// already.
    func whenStarted(_ hook: @escaping @Sendable () -> Void) {
        switch state.withLock({ $0.addStartHook(Hook(run: hook)) }) {
        case .none: break
        case .runNow: hook()
        }
    }

    /// Tells a derived core that its source began the run whose outcome will have number
    /// `run` (see ``RequestCoreMachine/sourceBegan(run:)``); its source keeps it from then on
    /// until it finishes.
    private func sourceBegan(run: Int) {
        let action = state.withLock { state in
            let action = state.sourceBegan(run: run)
            // Under the lock, so that it is ordered with the release when the run ends.
            if case .none = action {} else { link?.retain() }
            return action
        }
        perform(action)
    }

    // MARK: - Callbacks

    /// Adds a handler for the result: it runs for the current outcome at once when finished,
    /// and for every later one; after earlier handlers each time. A handler `once` runs for
    /// one outcome only, then is dropped.
    func addHandler(once: Bool = false, _ handler: @escaping @Sendable (Erased) -> Void) {
        perform(state.withLock { $0.addHandler(Handler(run: handler), once: once) })
    }

    /// Hands out what is pending when the caller has become the drainer.
    private func perform(_ action: Machine.DrainAction) {
        switch action {
        case .none: break
        case .drain: drain()
        }
    }

    /// Runs the handlers for each outcome, and queued start hooks, one at a time and in
    /// order, until there is nothing left to run; then resumes the awaits.
    private func drain() {
        var resumptions = Resumptions()
        while true {
            switch state.withLock({ $0.nextDrainStep() }) {
            case .deliver(let delivery):
                for (body, once) in delivery {
                    if once { resumptions.append(body.run, delivery.outcome) } else { body.run(delivery.outcome) }
                }
            case .start(let hooks, let run):
                for hook in hooks { hook.run() }
                launch(run: run)
            case .done:
                resumptions.runAll()
                return
            }
        }
    }

    /// The outcome being handed out, as its handlers see it: its number and response.
    private var delivery: (number: Int, response: ResponseInfo?) {
        state.withLock { ($0.deliveringNumber, $0.deliveringResponse) }
    }

    // MARK: - Awaiting

    /// The result of the current run once it ends, or at once when finished. Cancelling
    /// the awaiting task cancels the run.
    var result: Erased {
        get async {
            await withTaskCancellationHandler {
                // Unsafe is sound here: a handler added `once` runs exactly once, and is
                // dropped afterwards.
                await withUnsafeContinuation { continuation in
                    addHandler(once: true) { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The response of the latest run.
    var response: ResponseInfo? {
        state.withLock { $0.response }
    }

    // MARK: - Events

    /// The events from now on; see ``RequestHandle/events``.
    var events: AsyncStream<RequestEvent> {
        // Under the state lock, so that a subscription either precedes `finish` (and gets
        // its completion) or follows it (and gets the completion replayed).
        let (stream, live) = state.withLock { state in
            switch state.subscribe() {
            case .replay(let result):
                let (stream, continuation) = AsyncStream.makeStream(of: RequestEvent.self)
                continuation.yield(.completed(succeeded: result?.isSuccess ?? false))
                continuation.finish()
                return (stream, false)
            case .join(let broadcast):
                return (broadcast.subscribe(), true)
            case .create:
                // Created on first use: a handle nobody observes pays for no fan-out.
                let broadcast = Broadcast<RequestEvent>(bufferSize: 256)
                state.install(broadcast)
                return (broadcast.subscribe(), true)
            }
        }
        if live { connectToSourceIfNeeded() }
        return stream
    }

    /// Forwards the source's events to a derived handle from now on, once.
    private func connectToSourceIfNeeded() {
        let connect = state.withLock { $0.takeConnector() }
        connect?.run()
    }

    /// Passes every later non-completion event to `observer`, synchronously (how a derived
    /// handle forwards its source's events without a task of its own), in this run and
    /// every later one.
    func observe(_ observer: @escaping @Sendable (RequestEvent) -> Void) {
        state.withLock { $0.addObserver(Observer(run: observer)) }
        connectToSourceIfNeeded()
    }

    /// Hands `event` to the subscriptions and the observers.
    private func publish(_ event: RequestEvent) {
        let (observers, broadcast) = state.withLock { ($0.observers, $0.fanout) }
        broadcast?.yield(event)
        for observer in observers { observer.run(event) }
    }

    // MARK: - Finishing

    /// Ends the run in progress with `outcome`; does nothing when it has ended already. A
    /// derived core passes the number of the source's outcome it finishes from.
    private func finish(
        _ outcome: Result<(value: any Sendable, response: ResponseInfo?), any Error>, sourceOutcome: Int? = nil
    ) {
        let result = outcome.map { $0.value }
        let response = try? outcome.get().response
        let drain: Machine.DrainAction = state.withLock { state in
            let action = state.finish(result, response: response, sourceOutcome: sourceOutcome)
            guard case .ended(let broadcast, let continues, let drain) = action else { return .none }
            // Under the lock, so that a subscription either gets this completion or a replay
            // of it, and so that the release is ordered with the retain when a run begins.
            if let broadcast {
                broadcast.yield(.completed(succeeded: result.isSuccess))
                broadcast.finish()
            }
            if !continues { link?.release() }
            return drain
        }
        perform(drain)
    }

    /// A task's cancellation as a ``TransportError``; any other error as it is.
    private static func normalized(_ error: any Error) -> any Error {
        guard error is CancellationError else { return error }
        return TransportError(.cancelled, message: "The request was cancelled before it completed.")
    }
}

extension RequestCore {
    /// A core finished by this one's completion handler with `transform`'s value, on the
    /// thread that finished this one, after each of this one's runs; see
    /// ``RequestHandle/map(_:)``.
    func derive(startingImmediately: Bool, _ transform: @escaping Transform) -> RequestCore {
        let derived = RequestCore(derivedFrom: self, startingImmediately: startingImmediately)
        // Until this core starts, it refers to the derived one weakly, so that a deferred
        // pair nobody starts is freed; during each run, strongly (see `DerivedLink`).
        let link = derived.link
        let follower: @Sendable (Int) -> Void = { run in link?.target?.sourceBegan(run: run) }
        // `unowned`: this core runs its own handlers, so it is alive whenever this one runs.
        let handler: @Sendable (Erased) -> Void = { [unowned self] result in
            guard let derived = link?.target else { return }
            let (number, response) = self.delivery
            let outcome = Result { () throws -> (value: any Sendable, response: ResponseInfo?) in
                (try transform(result, response), response)
            }
            derived.finish(outcome.mapError(RequestCore.normalized), sourceOutcome: number)
        }
        // Registered together, with the derived core told which outcome comes first, so that
        // a reload racing this counts every run once.
        let action = state.withLock { state in
            let action = state.addFollower(Follower(run: follower), handler: Handler(run: handler))
            derived.state.withLock { $0.follow(from: action.first) }
            return action
        }
        if action.announce { follower(action.first) }
        perform(action.drain)
        // Events are forwarded from the first subscription to the derived handle's events on.
        derived.state.withLock { state in
            state.setConnector(Hook { [self] in observe { event in link?.target?.publish(event) } })
        }
        derived.onCancel { [self] in cancel() }
        return derived
    }
}

/// The reference a source handle holds to a handle derived from it: weak until the source
/// starts, strong from the start of each run until it ends. The derived core switches it
/// under its own lock, as its runs begin and end.
private final class DerivedLink: Sendable {
    private struct State {
        weak var weakTarget: RequestCore?
        var strongTarget: RequestCore?
    }

    private let state = PThreadMutex(State())

    /// Points the link at the derived core, weakly.
    func attach(_ target: RequestCore) {
        state.withLock { $0.weakTarget = target }
    }

    /// The derived handle, if it is still alive.
    var target: RequestCore? {
        state.withLock { $0.strongTarget ?? $0.weakTarget }
    }

    /// Keeps the derived handle alive.
    func retain() {
        state.withLock { $0.strongTarget = $0.weakTarget }
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
