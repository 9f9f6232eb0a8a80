import Synchronization

/// The shell around every ``RequestHandle``'s state machine, with the value boxed.
///
/// Not generic, so that its locked state and its handler lists have one layout whatever
/// the handle's value: a generic class used across modules runs unspecialised, and every
/// access to a generic type inside it looks its metadata up at run time.
///
/// The transitions (what a start, a reload, a cancel, a claim, a finish or a new handler does
/// to the state, and in what order the handlers and start hooks run) are a
/// ``RequestCoreMachine``, a value held inline in the lock. Each method here takes the lock
/// for one event of the machine and, once it has let go, performs the action the event
/// returned: it runs hooks and handlers, launches and cancels tasks, runs the operation in an
/// awaiting task, and resumes awaits. Two effects stay under the lock, because other threads'
/// transitions must see them in order: a finished run completing the subscriptions to its
/// events, and a cancel running the handlers registered with the run's
/// ``RequestCancellation`` (a registration undone before its closure goes must not find it
/// still running).
///
/// One core serves a handle and every view of it (``RequestHandle/map(_:)``): a view's
/// handlers and awaits are registered here with its ``HandleView`` and its owner number.
final class RequestCore: Sendable {
    /// The value, boxed.
    typealias Erased = Result<any Sendable, any Error>
    /// What the machine holds for a core: its tasks, its closures, its event fan-out.
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
        /// An observer (see ``RequestCore/observe(owner:_:)``).
        typealias Observer = RequestCore.Observer
        /// The subscriptions to ``RequestCore/events`` during a run.
        typealias Fanout = Broadcast<RequestEvent>
    }

    /// A handler for outcomes, with the view whose value it wants (none for the core's own).
    private struct Handler: Sendable {
        /// Applies the view's transform on the way, when there is one.
        let view: HandleView?
        /// Runs the handler.
        let run: @Sendable (Erased) -> Void
        /// Whether it runs for a run that a ``RequestStop`` ended too (an `onStop` hook, a
        /// stream of values); `success`, `failure` and `completion` handlers do not.
        var seesStops = false
    }

    /// A start or cancel hook, or a handler registered with a run's cancellation.
    private struct Hook: Sendable {
        /// Runs the hook.
        let run: @Sendable () -> Void
        /// For a handler registered with a run: holds its wait still (`true`) or moves it again
        /// (`false`) as the handle is suspended and resumed; `nil` for a wait that cannot.
        var suspend: (@Sendable (Bool) -> Void)? = nil
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
    /// The work of every run; `nil` for an already finished core.
    private let operation: (any BoxedOperation)?
    /// The executor each run's operation prefers; `nil` for the global executor (or, in an
    /// awaiting task, that task's own preference).
    private let taskExecutor: (any TaskExecutor)?
    /// How many handles share this core: the one that made it and its views. When the last
    /// goes, a pending run (one nobody awaited) is launched in a task of its own.
    private let holders = Atomic<Int>(1)

    /// A core that runs `operation` once started, and again on each reload, each run
    /// preferring `taskExecutor` (the global executor when `nil`); in a task that awaits it
    /// when `runsInAwaitingTask` (the operation honours ``RequestCancellation``).
    init(runsInAwaitingTask: Bool = false, taskExecutor: (any TaskExecutor)? = nil, operation: any BoxedOperation) {
        self.operation = operation
        self.taskExecutor = taskExecutor
        state = PThreadMutex { Machine(allowsAwaitedRuns: runsInAwaitingTask) }
        LiveCounts.requestCores.increment()
    }

    /// A core that has already finished with `result`, and cannot run.
    init(finished result: Erased) {
        operation = nil
        taskExecutor = nil
        state = PThreadMutex { Machine(finished: result) }
        LiveCounts.requestCores.increment()
    }

    deinit {
        LiveCounts.requestCores.decrement()
    }

    /// Performs `body` on the machine under the lock, then lets go, after the lock, of what
    /// views that went away had registered, since releasing a closure may release a handle
    /// whose going away takes the lock again.
    private func locked<Result>(_ body: (inout Machine) -> Result) -> Result {
        var discarded: Machine.Discarded?
        let result = state.withLock { state in
            let result = body(&state)
            if state.discarded != nil { discarded = state.takeDiscarded() }
            return result
        }
        withExtendedLifetime(discarded) {}
        return result
    }

    // MARK: - Lifecycle

    /// Starts the operation; does nothing when it has started already.
    func start() {
        guard operation != nil else { return }
        perform(locked { $0.start() })
    }

    /// Runs the operation again once the previous run has finished (or for the first time,
    /// like ``start()``); does nothing during a run.
    func reload() {
        guard operation != nil else { return }
        perform(locked { $0.reload() })
    }

    /// Runs the start hooks of a run that begins now, then launches its task or leaves it
    /// pending.
    private func perform(_ action: Machine.StartAction) {
        switch action {
        case .none, .queued:
            return
        case .begin(let hooks, let number):
            for hook in hooks { hook.run() }
            begun(run: number)
        }
    }

    /// Launches the task of run number `run`, whose start hooks have run, unless the run waits
    /// for a task that awaits the handle (see ``RequestCoreMachine/begun(run:)``).
    private func begun(run: Int) {
        if state.withLock({ $0.begun(run: run) }) { launch(run: run) }
    }

    /// Launches the task of the pending run, if there is one.
    private func launchPending() {
        if let run = state.withLock({ $0.launchPending() }) { launch(run: run) }
    }

    /// One more handle shares the core: a view made of it.
    func addHolder() {
        holders.wrappingAdd(1, ordering: .relaxed)
    }

    /// A handle sharing the core went away; when it was the last, a pending run is launched in
    /// a task of its own, so that a handle nobody awaits or keeps still runs (fire and forget).
    func removeHolder() {
        guard holders.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0, operation != nil else {
            return
        }
        launchPending()
    }

    /// Creates the task of run number `run`, whose start hooks have run: it runs the
    /// operation unless a task that awaits the handle claims the run first.
    private func launch(run: Int) {
        let task = Task(executorPreference: taskExecutor) { [self] in
            guard let observed = state.withLock({ $0.claim(run: run) ? $0.isObserved : nil }) else { return }
            // A handle started by an operation running in an awaiting task is no part of that
            // operation: its task takes its own run's cancellation along, not that run's. A
            // cancel reaches it through the task; the cancellation carries the suspension.
            let cancellation = RequestCancellation(core: self, run: run)
            finish(
                await RequestCancellation.$current.withValue(cancellation) { await runOperation(observed: observed) })
        }
        switch state.withLock({ $0.launched(task, run: run) }) {
        case .none: break
        case .cancelTask: task.cancel()
        }
    }

    /// Runs the operation, its errors normalised. `observed`: whether anything takes the
    /// events as the operation begins (read under the lock that began it); when nothing does,
    /// the operation may spare the transport its progress reports.
    private nonisolated(nonsending) func runOperation(observed: Bool) async -> Result<
        (value: any Sendable, response: ResponseInfo?), any Error
    > {
        // swift-format-ignore: NeverForceUnwrap
        let operation = operation!
        let sink = RequestEventSink(core: self, observed: observed)
        do {
            return .success(try await operation.run(sink))
        } catch {
            return .failure(Self.normalized(error))
        }
    }

    /// Stops the run in progress; it fails with a `.cancelled` ``TransportError``. With a
    /// `run`, only when that run is the one in progress: for a cancel decided elsewhere (a
    /// registry of live requests) that must not reach a later run.
    func cancel(run: Int? = nil) {
        let action = state.withLock { state in
            if let run { state.cancel(run: run) } else { state.cancel() }
        }
        switch action {
        case .none:
            break
        case .runHooks(let hooks):
            for hook in hooks { hook.run() }
        case .cancelTask(let task, let hooks):
            for hook in hooks { hook.run() }
            task.cancel()
        case .cancelScope(let hooks):
            for hook in hooks { hook.run() }
            // Under the lock: a registration undone meanwhile waits until its handler has run,
            // so the handler never outlives the wait it belongs to.
            state.withLock { state in
                for handler in state.takeScopeHandlers() { handler.run() }
            }
        case .fail(let hooks):
            for hook in hooks { hook.run() }
            finish(
                .failure(
                    TransportError(
                        .cancelled, message: "The request was cancelled before it started.",
                        mayHaveReachedServer: false)))
        }
    }

    // MARK: - Cancellation of a run in an awaiting task

    /// Whether run number `run`, in progress, was cancelled.
    func isCancelled(run: Int) -> Bool {
        state.withLock { $0.isCancelled(run: run) }
    }

    /// Registers `handler` with the cancellation of run number `run`: a cancel of that run
    /// runs it, under the lock; it runs at once when the run was cancelled already. The number
    /// to undo it with, `nil` when nothing was kept.
    ///
    /// A `suspender` holds the wait still while the handle is suspended (`true`) and moves it
    /// again when resumed (`false`): it is told at once, under the lock, when the run was
    /// suspended already, and later on each suspend and resume, under the lock.
    func register(
        _ handler: @escaping @Sendable () -> Void, suspender: (@Sendable (Bool) -> Void)? = nil, run: Int
    ) -> Int? {
        let registration = state.withLock { state in
            let registration = state.addScopeHandler(
                Hook(run: handler, suspend: suspender), run: run, suspendable: suspender != nil)
            if let suspender, case .kept = registration, let suspended = state.suspensionForNewHandler {
                suspender(suspended)
            }
            return registration
        }
        switch registration {
        case .kept(let id):
            return id
        case .runNow:
            handler()
            return nil
        case .ignored:
            return nil
        }
    }

    /// Undoes a registration with the cancellation of a run; once this returns, its handler
    /// is neither kept nor running.
    func unregister(_ registration: Int?) {
        guard let registration else { return }
        state.withLock { state in
            // Let go of under the lock, as a cancel does.
            _ = state.removeScopeHandler(registration)
        }
    }

    // MARK: - Suspension

    /// Suspends the handle: the waits registered with its run hold still (a transfer pauses),
    /// and those registered later start held, until ``resume()``.
    func suspend() {
        state.withLock { Self.tell($0.suspend()) }
    }

    /// Resumes a suspended handle.
    func resume() {
        state.withLock { Self.tell($0.resume()) }
    }

    /// Whether the handle is suspended.
    var isSuspended: Bool {
        state.withLock { $0.isSuspended }
    }

    /// Tells the waits of a run to hold still or move; under the lock, as a cancel runs its
    /// handlers, so that a registration undone meanwhile waits for its suspender to return.
    private static func tell(_ action: Machine.SuspensionAction) {
        guard case .tell(let suspended, let handlers) = action else { return }
        for handler in handlers { handler.suspend?(suspended) }
    }

    /// Registers work to run on the cancelling thread each time a run in progress is cancelled.
    func onCancel(owner: Int, _ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.addCancelHook(Hook(run: hook), owner: owner) }
    }

    /// Runs `hook` each time a run starts, and at once when one has started (or finished)
    /// already.
    func whenStarted(owner: Int, _ hook: @escaping @Sendable () -> Void) {
        switch state.withLock({ $0.addStartHook(Hook(run: hook), owner: owner) }) {
        case .none: break
        case .runNow: hook()
        }
    }

    /// A view went away: what it registered runs for the run in progress at most.
    func viewEnded(owner: Int) {
        locked { $0.ownerEnded(owner) }
    }

    // MARK: - Callbacks

    /// Adds a handler for the result (`view`'s, when given): it runs for the current outcome
    /// at once when finished, and for every later one; after earlier handlers each time. A
    /// handler `once` runs for one outcome only, then is dropped. A handler for every outcome
    /// launches the task of a pending run: its outcome is wanted, whether or not anybody
    /// awaits it.
    func addHandler(
        once: Bool = false, seesStops: Bool = false, owner: Int, view: HandleView?,
        _ handler: @escaping @Sendable (Erased) -> Void
    ) {
        let (drain, pending) = state.withLock { state in
            let drain = state.addHandler(
                Handler(view: view, run: handler, seesStops: seesStops), once: once, owner: owner)
            return (drain, once ? nil : state.launchPending())
        }
        if let pending { launch(run: pending) }
        perform(drain)
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
            switch locked({ $0.nextDrainStep() }) {
            case .deliver(let delivery):
                // A run a plugin or a middleware stopped calls back only awaits and what asked
                // for stops (see `RequestStop`).
                let stopped = RequestStop.isStop(delivery.outcome)
                for (body, once) in delivery {
                    if stopped && !once && !body.seesStops { continue }
                    let outcome =
                        body.view?.outcome(of: delivery.outcome, number: delivery.number, response: delivery.response)
                        ?? delivery.outcome
                    if once { resumptions.append(body.run, outcome) } else { body.run(outcome) }
                }
            case .start(let hooks, let run):
                for hook in hooks { hook.run() }
                begun(run: run)
            case .done:
                resumptions.runAll()
                return
            }
        }
    }

    // MARK: - Awaiting

    /// What a task that awaits the handle does first.
    private enum Await {
        /// Runs the operation: it claimed run number `run`; `observed` says whether anything
        /// took the handle's events as it did.
        case run(Int, observed: Bool)
        /// Takes this outcome: the core has finished, and the task is the drainer.
        case take(Erased, response: ResponseInfo?, number: Int)
        /// Waits for the outcome.
        case wait
    }

    /// The result of the current run once it ends (`view`'s, when given), or at once when
    /// finished. Cancelling the awaiting task cancels the run.
    ///
    /// When the run's task has not begun the operation yet, the awaiting task claims the run
    /// and runs the operation itself (if the core allows it): its task then finds the run
    /// claimed and does nothing.
    ///
    /// It and the layers it runs (``runAwaited(run:observed:view:owner:)``, the operation) run
    /// on the caller's executor (`nonisolated(nonsending)`): the handle's public awaits hop once,
    /// as they begin, and each layer below would otherwise check for a hop of its own.
    nonisolated(nonsending) func result(view: HandleView?, owner: Int) async -> Erased {
        let first = state.withLock { state -> Await in
            if let run = state.claimForAwait() { return .run(run, observed: state.isObserved) }
            if let (outcome, response, number) = state.takeFinished() {
                return .take(outcome, response: response, number: number)
            }
            return .wait
        }
        switch first {
        case .run(let run, let observed):
            return await runAwaited(run: run, observed: observed, view: view, owner: owner)
        case .take(let outcome, let response, let number):
            // As the drainer: the view's outcome may be computed here. The await returns once
            // what was added meanwhile has been handed out, as any await does.
            let result = view?.outcome(of: outcome, number: number, response: response) ?? outcome
            drain()
            return result
        case .wait:
            break
        }
        return await withTaskCancellationHandler {
            // Unsafe is sound here: a handler added `once` runs exactly once, and is
            // dropped afterwards.
            await withUnsafeContinuation { continuation in
                addHandler(once: true, owner: owner, view: view) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Runs the operation of run number `run`, which the calling task claimed, in this task
    /// with the run's ``RequestCancellation`` current, then finishes the run and returns its
    /// outcome (`view`'s, when given) once the handlers have had it.
    ///
    /// A cancel of the handle reaches the operation through that cancellation only; this
    /// task's own cancellation (or that of an outer handle's run that this one is part of)
    /// cancels the handle.
    private nonisolated(nonsending) func runAwaited(
        run: Int, observed: Bool, view: HandleView?, owner: Int
    ) async -> Erased {
        let cancellation = RequestCancellation(core: self, run: run)
        let outcome = await RequestCancellation.withCancellationHandler {
            await RequestCancellation.$current.withValue(cancellation) {
                if let taskExecutor {
                    await withTaskExecutorPreference(taskExecutor) { await runOperation(observed: observed) }
                } else {
                    await runOperation(observed: observed)
                }
            }
        } onCancel: {
            cancel()
        }
        switch finishAwaited(outcome, view: view, owner: owner) {
        case .taken(let result):
            return result
        case .handedOut(let later):
            return await later.value
        }
    }

    /// How the task that ran an awaited run gets its outcome.
    private enum AwaitedOutcome {
        /// It took the outcome as the drainer, and the handlers have had it.
        case taken(Erased)
        /// Another thread hands it out: it comes through this.
        case handedOut(LaterOutcome)
    }

    /// Ends the run that the calling task ran while awaiting the handle with `outcome`, and
    /// gives back that outcome (`view`'s, when given) once the handlers have had it.
    ///
    /// Usually the task hands the outcome out itself, as the drainer: then it applies the
    /// view's transform, runs the handlers, and has the outcome at once, with no handler,
    /// continuation or suspension of its own. When another thread is handing an earlier
    /// outcome out (or the run had ended), it registers a one-shot handler, as any await does,
    /// in the same lock section, so that it gets this run's outcome and no later one; the
    /// handler leaves the outcome in a ``LaterOutcome`` for the task to wait on.
    private func finishAwaited(
        _ outcome: Result<(value: any Sendable, response: ResponseInfo?), any Error>, view: HandleView?,
        owner: Int
    ) -> AwaitedOutcome {
        let result = outcome.map { $0.value }
        let response = try? outcome.get().response
        var drain = Machine.DrainAction.none
        // The number of the outcome the task hands out, when it is the drainer.
        var number = 0
        let later = state.withLock { state -> LaterOutcome? in
            let fanout: Broadcast<RequestEvent>?
            switch state.finishAwaited(result, response: response) {
            case .take(let completing, let taken):
                Self.complete(completing, succeeded: result.isSuccess)
                number = taken
                return nil
            case .queued(let completing):
                fanout = completing
            case .wait:
                fanout = nil
            }
            Self.complete(fanout, succeeded: result.isSuccess)
            let later = LaterOutcome()
            let handler = Handler(view: view) { later.deliver($0) }
            if case .drain = state.addHandler(handler, once: true, owner: owner) { drain = .drain }
            return later
        }
        if let later {
            perform(drain)
            return .handedOut(later)
        }
        // The drainer: only it touches what a view keeps.
        let value = view?.outcome(of: result, number: number, response: response) ?? result
        self.drain()
        return .taken(value)
    }

    /// The outcome of an awaited run that another thread hands out: the await's one-shot
    /// handler leaves it here, and the task that ran the run waits for it here.
    private final class LaterOutcome: Sendable {
        private enum State {
            /// Not handed out yet; the task waiting, once it waits.
            case waiting(UnsafeContinuation<Erased, Never>?)
            /// Handed out before the task waited.
            case delivered(Erased)
        }

        private let state = PThreadMutex(State.waiting(nil))

        /// Hands the outcome over: to the waiting task, or to the one that will wait.
        func deliver(_ outcome: Erased) {
            let waiter = state.withLock { state -> UnsafeContinuation<Erased, Never>? in
                guard case .waiting(let waiter) = state else { return nil }
                if waiter == nil { state = .delivered(outcome) }
                return waiter
            }
            waiter?.resume(returning: outcome)
        }

        /// The outcome, once handed over.
        var value: Erased {
            get async {
                // Unsafe is sound here: the continuation is stored once, and `deliver` resumes
                // it once, or it is resumed here at once with an outcome delivered already.
                await withUnsafeContinuation { continuation in
                    let delivered = state.withLock { state -> Erased? in
                        if case .delivered(let outcome) = state { return outcome }
                        state = .waiting(continuation)
                        return nil
                    }
                    if let delivered { continuation.resume(returning: delivered) }
                }
            }
        }
    }

    /// Completes the subscriptions to a run's events; under the lock, so that a subscription
    /// either gets this completion or a replay of it.
    private static func complete(_ fanout: Broadcast<RequestEvent>?, succeeded: Bool) {
        guard let fanout else { return }
        fanout.yield(.completed(succeeded: succeeded))
        fanout.finish()
    }

    /// Whether the latest run has ended and its outcome has been handed out, with no run
    /// begun or queued since: nothing will call the handlers again unless something starts a
    /// run.
    var isSettled: Bool {
        state.withLock { $0.isSettled }
    }

    /// The response of the latest run.
    var response: ResponseInfo? {
        state.withLock { $0.response }
    }

    /// The latest run's response when the handle is settled (``isSettled``), read in one lock
    /// section: an await of ``RequestHandle/response`` then has nothing to wait for or run.
    var settledResponse: (isSettled: Bool, response: ResponseInfo?) {
        state.withLock { state in state.isSettled ? (true, state.response) : (false, nil) }
    }

    // MARK: - Events

    /// The events from now on; see ``RequestHandle/events``.
    var events: AsyncStream<RequestEvent> {
        // Under the state lock, so that a subscription either precedes `finish` (and gets
        // its completion) or follows it (and gets the completion replayed).
        let (stream, pending) = state.withLock { state -> (AsyncStream<RequestEvent>, Int?) in
            switch state.subscribe() {
            case .replay(let result):
                let (stream, continuation) = AsyncStream.makeStream(of: RequestEvent.self)
                continuation.yield(.completed(succeeded: result?.isSuccess ?? false))
                continuation.finish()
                return (stream, nil)
            case .join(let broadcast):
                return (broadcast.subscribe(), state.launchPending())
            case .create:
                // Created on first use: a handle nobody observes pays for no fan-out.
                let broadcast = Broadcast<RequestEvent>(bufferSize: 256)
                state.install(broadcast)
                // A subscriber waits for the completion: a pending run must run without an await.
                return (broadcast.subscribe(), state.launchPending())
            }
        }
        if let pending { launch(run: pending) }
        return stream
    }

    /// Passes every later non-completion event to `observer`, synchronously, in this run and
    /// every later one.
    func observe(owner: Int, _ observer: @escaping @Sendable (RequestEvent) -> Void) {
        let pending = state.withLock { state in
            state.addObserver(Observer(run: observer), owner: owner)
            // Something watches the run: a pending run runs without waiting for an await.
            return state.launchPending()
        }
        if let pending { launch(run: pending) }
    }

    /// Hands `event` to the subscriptions and the observers.
    func publish(_ event: RequestEvent) {
        let (observers, broadcast) = state.withLock { ($0.observers, $0.fanout) }
        broadcast?.yield(event)
        for observer in observers { observer.run(event) }
    }

    // MARK: - Finishing

    /// Ends the run in progress with `outcome`; does nothing when it has ended already.
    private func finish(_ outcome: Result<(value: any Sendable, response: ResponseInfo?), any Error>) {
        let result = outcome.map { $0.value }
        let response = try? outcome.get().response
        let drain: Machine.DrainAction = state.withLock { state in
            var drain = Machine.DrainAction.none
            if case .ended(let broadcast, let ended) = state.finish(result, response: response) {
                Self.complete(broadcast, succeeded: result.isSuccess)
                drain = ended
            }
            return drain
        }
        perform(drain)
    }

    /// A task's cancellation as a ``TransportError``; any other error as it is.
    static func normalized(_ error: any Error) -> any Error {
        guard error is CancellationError else { return error }
        return TransportError(.cancelled, message: "The request was cancelled before it completed.")
    }
}

extension Result {
    /// Whether this is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
