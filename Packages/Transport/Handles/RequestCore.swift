/// The state machine behind every ``RequestHandle``, with the value boxed.
///
/// Not generic, so that its locked state and its handler lists have one layout whatever
/// the handle's value: a generic class used across modules runs unspecialised, and every
/// access to a generic type inside it looks its metadata up at run time.
///
/// A core runs its operation once per run: the first run begins with ``start()``, each later
/// one with ``reload()`` once the previous one has finished. Handlers, start hooks, cancel
/// hooks and observers stay registered across runs. Outcomes are numbered from 1; a handler
/// runs for every outcome from the one current when it was added (when finished) or the
/// next one (otherwise). Everything that must not overlap (handlers, and the start hooks of
/// a run that begins while the previous outcome is still being handed out) runs on one
/// thread at a time, the drainer, in order.
///
/// A derived core learns of each run of its source as the run begins, synchronously, so that
/// awaiting it right after a reload waits for the new outcome; the source's outcomes reach it
/// later, in order, from the source's handlers. Both carry the number of the source's
/// outcome, so that one arriving before its run's announcement (the two come from different
/// threads) is still counted once.
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
        /// Never started.
        case idle
        /// A derived core never started: starting it starts its source.
        case waitingForSource
        /// A run has begun, its task not created yet: its start hooks run (or wait for the
        /// drainer), or a cancel before the first start is failing it.
        case starting
        case running(Task<Void, Never>)
        /// A derived core whose source runs: it finishes from the source's completion.
        case following
        /// The latest run has ended with ``State/result``.
        case finished
    }

    /// A `success`, `failure`, `completion` or awaiting handler.
    private struct Handler {
        /// `nil` once a one-shot handler has run.
        var body: (@Sendable (Erased) -> Void)?
        /// Whether it runs for one outcome only (an `await`), or for every outcome.
        let once: Bool
        /// The number of the first outcome it runs for.
        let from: Int
    }

    /// Work queued behind the outcome the drainer is handing out.
    private enum Queued {
        /// A run began: its start hooks run (and, for a core with an operation, its task is
        /// created) once the handlers have had the previous outcome.
        case start
        /// A run ended with this outcome.
        case outcome(Erased, response: ResponseInfo?, number: Int)
    }

    /// Callbacks in the order added, the first held inline: most handles have one at most,
    /// which then costs no array.
    private struct Callbacks<Argument> {
        private var first: (@Sendable (Argument) -> Void)?
        private var rest: [@Sendable (Argument) -> Void] = []

        mutating func append(_ callback: @escaping @Sendable (Argument) -> Void) {
            if first == nil { first = callback } else { rest.append(callback) }
        }

        func runAll(_ argument: Argument) {
            first?(argument)
            for callback in rest { callback(argument) }
        }
    }

    private typealias Hooks = Callbacks<Void>

    private struct State {
        var phase: Phase
        /// The outcome of the latest run.
        var result: Erased?
        var response: ResponseInfo?
        /// How many runs have ended: the number of ``result``.
        var outcomes = 0
        /// Whether the run in progress was cancelled, so that the cancel hooks run once per run.
        var cancelRequested = false
        /// Whether the start hooks of the run in progress wait for the drainer.
        var startQueued = false

        var handlers: [Handler] = []
        /// The outcome the handlers get, its response and its number: the latest one, unless
        /// newer ones are queued behind it.
        var delivering: Erased?
        var deliveringResponse: ResponseInfo?
        var deliveringNumber = 0
        /// How many of ``handlers`` have been given ``delivering``.
        var delivered = 0
        /// How many of ``handlers`` are one-shot handlers that have run.
        var spent = 0
        var isDraining = false
        /// Work for the drainer after ``delivering``; empty unless a run began (or, for a
        /// derived core, ended) while the previous outcome was being handed out.
        var queued: [Queued] = []

        var observers: [@Sendable (RequestEvent) -> Void] = []
        var onCancel = Hooks()
        var onStart = Hooks()
        /// Tell the cores derived from this one that a run begins, with the number its outcome
        /// will have, before its start hooks run.
        var followers = Callbacks<Int>()
        /// For a derived handle: subscribes it to its source's events. Run by the first
        /// subscription or observer, so that events nobody listens to are not forwarded.
        var connectToSource: (@Sendable () -> Void)?
        /// Created by the first subscription to ``events`` during a run, so that a handle
        /// nobody observes pays for no fan-out.
        var broadcast: Broadcast<RequestEvent>?

        /// For a derived core: the number of the latest outcome of the source it has had, and
        /// of the latest run of the source it has been told of. It runs while the second is
        /// ahead of the first.
        var sourceOutcome = 0
        var sourceRun = 0

        var isFinished: Bool {
            if case .finished = phase { return true }
            return false
        }

        /// The number of the first outcome a handler added now runs for: the current one when
        /// finished, otherwise that of the latest run begun.
        var nextOutcome: Int {
            isFinished ? outcomes : outcomes + max(sourceRun - sourceOutcome, 1)
        }

        /// What the drainer does next: give the handlers not given it yet the outcome, or take
        /// the queued work; stops draining when there is none.
        mutating func nextDrainStep() -> DrainStep {
            while true {
                if let result = delivering, delivered < handlers.count {
                    let range = delivered..<handlers.count
                    delivered = handlers.count
                    return .deliver(handlers: handlers, range: range, result: result, number: deliveringNumber)
                }
                guard !queued.isEmpty else {
                    isDraining = false
                    return .done
                }
                switch queued.removeFirst() {
                case .outcome(let result, let response, let number):
                    delivering = result
                    deliveringResponse = response
                    deliveringNumber = number
                    delivered = 0
                case .start:
                    startQueued = false
                    compactHandlers()
                    return .start(hooks: onStart, run: outcomes + 1)
                }
            }
        }

        /// Drops the one-shot handlers that have run; only while nothing is being delivered.
        mutating func compactHandlers() {
            guard spent > 0 else { return }
            handlers.removeAll { $0.body == nil }
            spent = 0
            delivered = handlers.count
        }

        /// Marks the one-shot handlers among `range` spent once they have run for `number`.
        mutating func retire(_ range: Range<Int>, number: Int) {
            for index in range where handlers[index].once && handlers[index].from <= number {
                guard handlers[index].body != nil else { continue }
                handlers[index].body = nil
                spent += 1
            }
            if spent == handlers.count {
                // Releases the buffer rather than keeping it: it may still be shared.
                handlers = []
                spent = 0
                delivered = 0
            }
        }
    }

    private enum StartAction {
        case none
        /// The start hooks wait for the drainer; only the followers are told now.
        case queued(followers: Callbacks<Int>, number: Int)
        case run(followers: Callbacks<Int>, hooks: Hooks, number: Int)
    }

    private enum CancelAction {
        case none
        case cancelTask(Task<Void, Never>)
        case failNow
    }

    private enum DrainStep {
        case deliver(handlers: [Handler], range: Range<Int>, result: Erased, number: Int)
        /// Runs the start hooks, then, for a core with an operation, creates the task of run
        /// number `run`.
        case start(hooks: Hooks, run: Int)
        case done
    }

    /// One-shot handlers (awaits) that have had their outcome, resumed once the drainer has
    /// let go, so that code after an `await` finds the handle idle and adding a handler runs
    /// it at once.
    private struct Resumptions {
        private var first: (body: @Sendable (Erased) -> Void, result: Erased)?
        private var rest: [(body: @Sendable (Erased) -> Void, result: Erased)] = []

        mutating func append(_ body: @escaping @Sendable (Erased) -> Void, _ result: Erased) {
            if first == nil { first = (body, result) } else { rest.append((body, result)) }
        }

        func runAll() {
            if let first { first.body(first.result) }
            for resumption in rest { resumption.body(resumption.result) }
        }
    }

    /// The handle's state.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state: PThreadMutex<State>
    /// The work of every run; `nil` for a derived or an already finished core.
    private let operation: Operation?
    /// For a derived core, the core it follows: starting or reloading it does that to the source.
    private let source: RequestCore?
    /// For a derived core, how its source refers to it: strongly while it runs, so that the
    /// handlers of a derived handle nobody keeps still run.
    private let link: DerivedLink?

    /// A core that runs `operation` once started, and again on each reload.
    init(operation: @escaping Operation) {
        self.operation = operation
        source = nil
        link = nil
        state = PThreadMutex(State(phase: .idle))
    }

    /// A core that has already finished with `result`, and cannot run.
    init(finished result: Erased) {
        operation = nil
        source = nil
        link = nil
        state = PThreadMutex(
            State(phase: .finished, result: result, outcomes: 1, delivering: result, deliveringNumber: 1))
    }

    /// A core that finishes when `source` does (see ``derive(startingImmediately:_:)``): it
    /// has no task of its own, and starting or reloading it does that to the source.
    private init(derivedFrom source: RequestCore, startingImmediately startImmediately: Bool) {
        operation = nil
        self.source = source
        link = DerivedLink()
        state = PThreadMutex(State(phase: startImmediately ? .following : .waitingForSource))
        link?.attach(self)
    }

    // MARK: - Lifecycle

    /// Starts the operation (or, for a derived core, its source); does nothing when it has
    /// started already.
    func start() {
        if let source {
            let waiting = state.withLock { state in
                if case .waitingForSource = state.phase { return true }
                return false
            }
            // The source tells this core as its run begins.
            if waiting { source.start() }
            return
        }
        begin(again: false)
    }

    /// Runs the operation again once the previous run has finished (or for the first time,
    /// like ``start()``); does nothing during a run. A derived core reloads its source.
    func reload() {
        if let source {
            source.reload()
            return
        }
        begin(again: true)
    }

    /// Begins a run: from idle, or from finished when `again`.
    private func begin(again: Bool) {
        guard operation != nil else { return }
        let action: StartAction = state.withLock { state in
            switch state.phase {
            case .idle: break
            case .finished where again: break
            default: return .none
            }
            state.phase = .starting
            state.cancelRequested = false
            if state.isDraining {
                // The handlers still get the previous outcome: the drainer begins this run
                // after them, so that its start hooks follow their completion handlers.
                state.startQueued = true
                state.queued.append(.start)
                return .queued(followers: state.followers, number: state.outcomes + 1)
            }
            if again { state.compactHandlers() }
            return .run(followers: state.followers, hooks: state.onStart, number: state.outcomes + 1)
        }
        switch action {
        case .none:
            return
        case .queued(let followers, let number):
            followers.runAll(number)
        case .run(let followers, let hooks, let number):
            followers.runAll(number)
            hooks.runAll(())
            launch(run: number)
        }
    }

    /// Creates the task of run number `run`, whose start hooks have run.
    private func launch(run: Int) {
        guard let operation else { return }
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
        let cancelled = state.withLock { state in
            // The run may have ended already (and another begun) when the task was quick.
            guard case .starting = state.phase, state.outcomes == run - 1 else { return false }
            state.phase = .running(task)
            return state.cancelRequested
        }
        // A `cancel()` racing the start left the task for this to cancel.
        if cancelled { task.cancel() }
    }

    /// Stops the run in progress; it fails with a `.cancelled` ``TransportError``.
    func cancel() {
        let (action, hooks): (CancelAction, Hooks) = state.withLock { state in
            if state.isFinished || state.cancelRequested { return (.none, Hooks()) }
            state.cancelRequested = true
            switch state.phase {
            case .idle:
                // Not startable any more; the failure below ends this run.
                state.phase = .starting
                return (.failNow, state.onCancel)
            case .waitingForSource:
                // The hooks cancel the source, which fails at once, and so does this core.
                state.phase = .following
                return (.none, state.onCancel)
            case .starting, .following, .finished:
                // Starting: `launch(run:)` sees the request and cancels the task it creates.
                // Following: the hooks cancel the source, whose completion finishes this core.
                return (.none, state.onCancel)
            case .running(let task):
                return (.cancelTask(task), state.onCancel)
            }
        }
        hooks.runAll(())
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

    /// Registers work to run on the cancelling thread each time a run in progress is cancelled.
    func onCancel(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCancel.append(hook) }
    }

    /// Runs `hook` each time a run starts, and at once when one has started (or finished)
    /// already.
    func whenStarted(_ hook: @escaping @Sendable () -> Void) {
        let startedAlready = state.withLock { state in
            state.onStart.append(hook)
            switch state.phase {
            case .idle, .waitingForSource:
                return false
            case .starting, .running, .following, .finished:
                // Queued start hooks have not run yet, and will run this one.
                return !state.startQueued
            }
        }
        if startedAlready { hook() }
    }

    /// Tells a derived core that its source began the run whose outcome will have number
    /// `run`: it begins a run too when it has none in progress (the first time, or again
    /// after it finished), and otherwise once the one in progress ends. Handles derived from
    /// it in turn learn of the run at once. An announcement that comes after its outcome (or
    /// twice) is ignored.
    private func sourceBegan(run: Int) {
        let announcement: (followers: Callbacks<Int>, number: Int, hooks: Hooks?)? = state.withLock { state in
            guard run > state.sourceRun else { return nil }
            state.sourceRun = run
            link?.retain()
            let number = state.outcomes + (state.sourceRun - state.sourceOutcome)
            switch state.phase {
            case .waitingForSource, .finished: break
            default: return (state.followers, number, nil)
            }
            state.phase = .following
            state.cancelRequested = false
            if state.isDraining {
                state.startQueued = true
                state.queued.append(.start)
                return (state.followers, number, nil)
            }
            state.compactHandlers()
            return (state.followers, number, state.onStart)
        }
        guard let announcement else { return }
        announcement.followers.runAll(announcement.number)
        announcement.hooks?.runAll(())
    }

    // MARK: - Callbacks

    /// Adds a handler for the result: it runs for the current outcome at once when finished,
    /// and for every later one; after earlier handlers each time. A handler `once` runs for
    /// one outcome only, then is dropped.
    func addHandler(once: Bool = false, _ handler: @escaping @Sendable (Erased) -> Void) {
        let shouldDrain = state.withLock { state in
            state.handlers.append(Handler(body: handler, once: once, from: state.nextOutcome))
            guard state.isFinished, !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if shouldDrain { drain() }
    }

    /// Runs the handlers for each outcome, and queued start hooks, one at a time and in
    /// order, until there is nothing left to run; then resumes the awaits.
    private func drain() {
        var ran: (range: Range<Int>, number: Int)?
        var resumptions = Resumptions()
        while true {
            let step: DrainStep = state.withLock { state in
                if let ran { state.retire(ran.range, number: ran.number) }
                return state.nextDrainStep()
            }
            ran = nil
            switch step {
            case .deliver(let handlers, let range, let result, let number):
                for index in range {
                    let handler = handlers[index]
                    guard handler.from <= number, let body = handler.body else { continue }
                    if handler.once { resumptions.append(body, result) } else { body(result) }
                }
                ran = (range, number)
            case .start(let hooks, let run):
                hooks.runAll(())
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
            if state.isFinished {
                let (stream, continuation) = AsyncStream.makeStream(of: RequestEvent.self)
                continuation.yield(.completed(succeeded: state.result?.isSuccess ?? false))
                continuation.finish()
                return (stream, false)
            }
            if let broadcast = state.broadcast { return (broadcast.subscribe(), true) }
            // Created on first use: a handle nobody observes pays for no fan-out.
            let broadcast = Broadcast<RequestEvent>(bufferSize: 256)
            state.broadcast = broadcast
            return (broadcast.subscribe(), true)
        }
        if live { connectToSourceIfNeeded() }
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
    /// handle forwards its source's events without a task of its own), in this run and
    /// every later one.
    func observe(_ observer: @escaping @Sendable (RequestEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
        connectToSourceIfNeeded()
    }

    private func publish(_ event: RequestEvent) {
        let (observers, broadcast) = state.withLock { ($0.observers, $0.broadcast) }
        broadcast?.yield(event)
        for observer in observers { observer(event) }
    }

    // MARK: - Finishing

    /// Ends the run in progress with `outcome`; does nothing when it has ended already. A
    /// derived core passes the number of the source's outcome it finishes from.
    private func finish(
        _ outcome: Result<(value: any Sendable, response: ResponseInfo?), any Error>, sourceOutcome: Int? = nil
    ) {
        let result = outcome.map { $0.value }
        let response = try? outcome.get().response
        let shouldDrain: Bool = state.withLock { state in
            var unannounced = false
            if let sourceOutcome {
                guard sourceOutcome > state.sourceOutcome else { return false }
                state.sourceOutcome = sourceOutcome
                if state.sourceRun < sourceOutcome {
                    // The announcement of this run comes later, from another thread: the
                    // run begins and ends here, and the announcement will be ignored.
                    state.sourceRun = sourceOutcome
                    if case .following = state.phase {} else { unannounced = true }
                }
            } else {
                guard !state.isFinished else { return false }
            }
            state.outcomes += 1
            state.result = result
            state.response = response
            state.phase = .finished
            if let broadcast = state.broadcast {
                broadcast.yield(.completed(succeeded: result.isSuccess))
                broadcast.finish()
                state.broadcast = nil
            }
            if unannounced {
                state.startQueued = true
                state.queued.append(.start)
            }
            if state.isDraining || unannounced {
                // Handed out after the outcome before it (or after the start hooks).
                state.queued.append(.outcome(result, response: response, number: state.outcomes))
            } else {
                state.delivering = result
                state.deliveringResponse = response
                state.deliveringNumber = state.outcomes
                state.delivered = 0
            }
            if state.sourceRun > state.sourceOutcome {
                // A derived core whose source has begun its next run already: this core's
                // next run begins now, its start hooks after the handlers of this outcome.
                state.phase = .following
                state.cancelRequested = false
                state.startQueued = true
                state.queued.append(.start)
            } else {
                link?.release()
                if state.handlers.isEmpty && state.queued.isEmpty { return false }
            }
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if shouldDrain { drain() }
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
        let (announce, shouldDrain): (Int?, Bool) = state.withLock { state in
            let first = state.nextOutcome
            state.followers.append(follower)
            state.handlers.append(Handler(body: handler, once: false, from: first))
            derived.state.withLock { derived in
                derived.sourceOutcome = first - 1
                derived.sourceRun = first - 1
            }
            let begun: Bool
            switch state.phase {
            case .idle, .waitingForSource: begun = false
            case .starting, .running, .following, .finished: begun = true
            }
            guard state.isFinished, !state.isDraining else { return (begun ? first : nil, false) }
            state.isDraining = true
            return (first, true)
        }
        if let announce { follower(announce) }
        if shouldDrain { drain() }
        // Events are forwarded from the first subscription to the derived handle's events on.
        derived.state.withLock { state in
            state.connectToSource = { [self] in observe { event in link?.target?.publish(event) } }
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
