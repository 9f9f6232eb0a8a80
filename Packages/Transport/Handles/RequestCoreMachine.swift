/// The kinds of value a ``RequestCoreMachine`` holds without looking inside them: it stores
/// them and hands them back in the actions it returns, and never calls, creates or inspects
/// one. `RequestCore` fills them with its task, closures and event fan-out; tests with plain
/// values.
///
/// Fill them with nominal types, a closure wrapped in a struct rather than a function type:
/// a function type given as a generic argument is held in its most general form, and
/// converting a closure to that form and back costs a thunk, an allocation, each way.
package protocol RequestCoreMachineTypes {
    /// The task of a run: held while the run is in progress, handed back to be cancelled.
    associatedtype RunTask: Sendable
    /// How a run ended (its value or its error), as the handlers get it.
    associatedtype Outcome: Sendable
    /// The response a run ended with.
    associatedtype Response: Sendable
    /// Something that handles outcomes: a `success`, `failure` or `completion` handler, or an
    /// `await`.
    associatedtype Handler: Sendable
    /// A start hook or a cancel hook.
    associatedtype Hook: Sendable
    /// Tells a core derived from this one that a run begins, with the number its outcome will
    /// have.
    associatedtype Follower: Sendable
    /// Receives the events of every run.
    associatedtype Observer: Sendable
    /// Subscribes a derived core to its source's events.
    associatedtype Connector: Sendable
    /// Hands the events of the run in progress to every subscriber.
    associatedtype Fanout: Sendable
}

/// The transitions of a request handle, as a value: every event (start, reload, cancel,
/// finish, adding a handler or a hook, a source's run beginning, the drainer asking for its
/// next step) is a mutating method that updates the state and returns what the caller must
/// do once it has let go of the lock: run these hooks, launch run N, cancel this task, hand
/// this outcome to these handlers, or nothing.
///
/// It creates no task, takes no lock, calls no closure and reads no clock: `RequestCore`
/// keeps it in its lock and performs the actions, and the tests drive it with plain values.
///
/// A core runs its operation once per run: the first run begins with ``start()``, each later
/// one with ``reload()`` once the previous one has finished. Handlers, start hooks, cancel
/// hooks and observers stay registered across runs. Outcomes are numbered from 1; a handler
/// runs for every outcome from the one current when it was added (when finished) or the
/// next one (otherwise). Everything that must not overlap (handlers, and the start hooks of
/// a run that begins while the previous outcome is still being handed out) runs on one
/// thread at a time, the drainer, which takes its work from ``nextDrainStep()`` until it
/// says ``DrainStep/done``.
///
/// A derived core learns of each run of its source as the run begins (``sourceBegan(run:)``),
/// and of the run's outcome later (``finish(_:response:sourceOutcome:)``), from another
/// thread. Both carry the number of the source's outcome, so that an outcome arriving before
/// its run's announcement is still counted once.
package struct RequestCoreMachine<Types: RequestCoreMachineTypes>: Sendable {
    /// Where the core is in its runs.
    package enum Phase: Sendable {
        /// Never started.
        case idle
        /// A derived core never started: starting it starts its source.
        case waitingForSource
        /// A run has begun, its task not launched yet: its start hooks run (or wait for the
        /// drainer), or a cancel before the first start is failing it.
        case starting
        /// A run's task is running.
        case running(Types.RunTask)
        /// A derived core whose source runs: it finishes from the source's outcome.
        case following
        /// The latest run has ended with ``RequestCoreMachine/result``.
        case finished
    }

    /// A handler and the outcomes it runs for.
    package struct Handler: Sendable {
        /// `nil` once a one-shot handler has run.
        package fileprivate(set) var body: Types.Handler?
        /// Whether it runs for one outcome only (an `await`), or for every outcome.
        package let once: Bool
        /// The number of the first outcome it runs for.
        package let from: Int
    }

    /// Work queued behind the outcome the drainer is handing out.
    private enum Queued: Sendable {
        /// Run number `run` began: its start hooks run (and, for a core with an operation,
        /// its task is launched) once the handlers have had the previous outcome.
        case start(run: Int)
        /// A run ended with this outcome.
        case outcome(Types.Outcome, response: Types.Response?, number: Int)
    }

    /// Callbacks in the order added, the first held inline: most handles have one at most,
    /// which then costs no array.
    package struct Callbacks<Element: Sendable>: Sendable, Sequence {
        /// The first callback added.
        private var first: Element?
        /// The callbacks added after the first.
        private var rest: [Element] = []

        /// No callbacks.
        package init() {}

        /// Adds `callback` after the others.
        mutating func append(_ callback: Element) {
            if first == nil { first = callback } else { rest.append(callback) }
        }

        /// The callbacks in the order added.
        package func makeIterator() -> Iterator {
            Iterator(first: first, rest: rest.makeIterator())
        }

        /// Walks the callbacks in the order added.
        package struct Iterator: IteratorProtocol {
            /// The first callback, until it has been returned.
            fileprivate var first: Element?
            /// The others.
            fileprivate var rest: IndexingIterator<[Element]>

            /// The next callback.
            package mutating func next() -> Element? {
                if let callback = first {
                    first = nil
                    return callback
                }
                return rest.next()
            }
        }
    }

    /// An outcome for the drainer to hand to handlers: iterating it gives, in the order
    /// added, each handler that runs for it.
    package struct Delivery: Sendable, Sequence {
        /// Every handler, as when the delivery was made.
        private let handlers: [Handler]
        /// The handlers that have not had the outcome yet.
        private let range: Range<Int>
        /// The outcome.
        package let outcome: Types.Outcome
        /// Its number.
        package let number: Int

        /// A delivery of outcome `number` to `handlers[range]`.
        fileprivate init(handlers: [Handler], range: Range<Int>, outcome: Types.Outcome, number: Int) {
            self.handlers = handlers
            self.range = range
            self.outcome = outcome
            self.number = number
        }

        /// The handlers that run for the outcome, in the order added.
        package func makeIterator() -> Iterator {
            Iterator(handlers: handlers, index: range.lowerBound, end: range.upperBound, number: number)
        }

        /// Walks the handlers that run for an outcome: those added for it or an earlier one,
        /// one-shot handlers that have run left out.
        package struct Iterator: IteratorProtocol {
            /// Every handler.
            fileprivate let handlers: [Handler]
            /// The next one to look at.
            fileprivate var index: Int
            /// Where to stop.
            fileprivate let end: Int
            /// The outcome's number.
            fileprivate let number: Int

            /// The next handler that runs, and whether it runs for this outcome only.
            package mutating func next() -> (body: Types.Handler, once: Bool)? {
                while index < end {
                    let handler = handlers[index]
                    index += 1
                    guard handler.from <= number, let body = handler.body else { continue }
                    return (body, handler.once)
                }
                return nil
            }
        }
    }

    /// What the caller does after a run has been asked to begin.
    package enum StartAction: Sendable {
        /// Nothing: a run is in progress already, or the core cannot run now.
        case none
        /// Tell `followers` that the run whose outcome will have `number` begins; nothing
        /// else yet: its start hooks wait for the drainer (or, for a derived core with a run
        /// in progress, that run goes on and ends first).
        case announce(followers: Callbacks<Types.Follower>, number: Int)
        /// Tell `followers` that the run whose outcome will have `number` begins, run `hooks`,
        /// then launch the run's task (a core with an operation).
        case begin(followers: Callbacks<Types.Follower>, hooks: Callbacks<Types.Hook>, number: Int)
    }

    /// What the caller does with the task it launched for a run.
    package enum LaunchAction: Sendable {
        /// Nothing: the task runs.
        case none
        /// Cancel it: the run was cancelled while it was starting.
        case cancelTask
    }

    /// What the caller does to cancel the run in progress.
    package enum CancelAction: Sendable {
        /// Nothing: the core has finished, or this run was cancelled already.
        case none
        /// Run the cancel hooks; the run ends by other means (a task being launched is
        /// cancelled at launch, a derived core's source is cancelled by its hook).
        case runHooks(Callbacks<Types.Hook>)
        /// Run the cancel hooks, then cancel the run's task.
        case cancelTask(Types.RunTask, hooks: Callbacks<Types.Hook>)
        /// Run the cancel hooks, then finish the core with a cancellation: it never started.
        case fail(hooks: Callbacks<Types.Hook>)
    }

    /// What the caller does with a start hook it added.
    package enum HookAction: Sendable {
        /// Nothing now: it runs when a run starts.
        case none
        /// Run it now: a run has started (or finished) already.
        case runNow
    }

    /// Whether the caller becomes the drainer.
    package enum DrainAction: Sendable {
        /// No: there is nothing to hand out, or another thread is handing it out.
        case none
        /// Yes: take steps from ``RequestCoreMachine/nextDrainStep()`` until it says
        /// ``DrainStep/done``.
        case drain
    }

    /// What the caller does once a run has been given an outcome.
    package enum FinishAction: Sendable {
        /// Nothing: the run had ended already (or, for a derived core, this outcome of its
        /// source had been counted).
        case none
        /// The run ended: complete `fanout`'s subscriptions with the outcome; let go of a
        /// derived core its source kept alive unless `continues` (the source has begun its
        /// next run, so this core runs on); become the drainer when `drain` says so.
        case ended(fanout: Types.Fanout?, continues: Bool, drain: DrainAction)
    }

    /// The drainer's next piece of work.
    package enum DrainStep: Sendable {
        /// Hand the outcome to these handlers, in order.
        case deliver(Delivery)
        /// Run the start hooks, then launch the task of run number `run` (a core with an
        /// operation).
        case start(hooks: Callbacks<Types.Hook>, run: Int)
        /// Nothing is left: the caller is no longer the drainer.
        case done
    }

    /// What a subscription to the events of the run in progress gets.
    package enum Subscription: Sendable {
        /// The core has finished: its completion, replayed from this outcome.
        case replay(Types.Outcome?)
        /// A subscription to this fan-out.
        case join(Types.Fanout)
        /// Nobody has subscribed during this run: the caller creates the fan-out, hands it to
        /// ``RequestCoreMachine/install(_:)``, and subscribes to it.
        case create
    }

    /// What a source does after a derived core started following it.
    package struct FollowAction: Sendable {
        /// The number of the first of the source's outcomes the derived core gets: hand it to
        /// the derived core's ``RequestCoreMachine/follow(from:)``.
        package let first: Int
        /// Whether a run of the source has begun already (and so has outcome `first`): tell
        /// the follower at once.
        package let announce: Bool
        /// Whether the caller becomes the drainer.
        package let drain: DrainAction
    }

    /// Where the core is in its runs.
    package private(set) var phase: Phase
    /// The outcome of the latest run.
    package private(set) var result: Types.Outcome?
    /// The response of the latest run.
    package private(set) var response: Types.Response?
    /// How many runs have ended: the number of ``result``.
    package private(set) var outcomes = 0
    /// Whether the run in progress was cancelled, so that the cancel hooks run once per run.
    package private(set) var cancelRequested = false
    /// Whether the start hooks of the run in progress wait for the drainer.
    package private(set) var startQueued = false

    /// The handlers, in the order added.
    package private(set) var handlers: [Handler] = []
    /// The outcome the handlers get: the latest one, unless newer ones are queued behind it.
    private var delivering: Types.Outcome?
    /// The response of ``delivering``.
    package private(set) var deliveringResponse: Types.Response?
    /// The number of ``delivering``.
    package private(set) var deliveringNumber = 0
    /// How many of ``handlers`` have been given ``delivering``.
    private var delivered = 0
    /// The handlers the drainer was last given ``delivering`` for, to retire at its next
    /// step (the outcome still being ``deliveringNumber``: only the drainer changes it while
    /// there is one).
    private var handedOut: Range<Int>?
    /// How many of ``handlers`` are one-shot handlers that have run.
    private var spent = 0
    /// Whether a thread is handing outcomes out (or running queued start hooks).
    package private(set) var isDraining = false
    /// Work for the drainer after ``delivering``; empty unless a run began (or, for a
    /// derived core, ended) while the previous outcome was being handed out.
    private var queued: [Queued] = []

    /// Receive the events of every run.
    package private(set) var observers: [Types.Observer] = []
    /// Run each time a run in progress is cancelled.
    package private(set) var cancelHooks = Callbacks<Types.Hook>()
    /// Run each time a run starts.
    package private(set) var startHooks = Callbacks<Types.Hook>()
    /// Tell the cores derived from this one that a run begins, with the number its outcome
    /// will have, before its start hooks run.
    package private(set) var followers = Callbacks<Types.Follower>()
    /// For a derived core: subscribes it to its source's events. Taken by the first
    /// subscription or observer, so that events nobody listens to are not forwarded.
    private var connector: Types.Connector?
    /// Created by the first subscription to the events during a run, so that a core nobody
    /// observes pays for no fan-out.
    package private(set) var fanout: Types.Fanout?

    /// For a derived core: the number of the latest outcome of the source it has had.
    package private(set) var sourceOutcome = 0
    /// For a derived core: the number of the latest run of the source it has been told of.
    /// It runs while this is ahead of ``sourceOutcome``.
    package private(set) var sourceRun = 0

    /// A core that has never run.
    package init() {
        phase = .idle
    }

    /// A core that has already finished with `outcome`, and cannot run.
    package init(finished outcome: Types.Outcome) {
        phase = .finished
        result = outcome
        outcomes = 1
        delivering = outcome
        deliveringNumber = 1
    }

    /// A derived core: following its source from the start when `startingImmediately`,
    /// otherwise waiting for it to start.
    package init(derivedStartingImmediately startingImmediately: Bool) {
        phase = startingImmediately ? .following : .waitingForSource
    }

    /// Whether the latest run has ended.
    package var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    /// Whether this is a derived core that has not started: starting it starts its source.
    package var isWaitingForSource: Bool {
        if case .waitingForSource = phase { return true }
        return false
    }

    /// The number of the first outcome a handler added now runs for: the current one when
    /// finished, otherwise that of the latest run begun.
    package var nextOutcome: Int {
        isFinished ? outcomes : outcomes + max(sourceRun - sourceOutcome, 1)
    }

    // MARK: - Runs

    /// Begins the first run: does nothing unless the core is idle.
    package mutating func start() -> StartAction {
        begin(again: false)
    }

    /// Begins a run once the previous one has finished (or the first, like ``start()``); does
    /// nothing during a run.
    package mutating func reload() -> StartAction {
        begin(again: true)
    }

    /// Begins a run: from idle, or from finished when `again`.
    private mutating func begin(again: Bool) -> StartAction {
        switch phase {
        case .idle: break
        case .finished where again: break
        default: return .none
        }
        phase = .starting
        cancelRequested = false
        if isDraining {
            // The handlers still get the previous outcome: the drainer begins this run after
            // them, so that its start hooks follow their completion handlers.
            startQueued = true
            queued.append(.start(run: outcomes + 1))
            return .announce(followers: followers, number: outcomes + 1)
        }
        if again { compactHandlers() }
        return .begin(followers: followers, hooks: startHooks, number: outcomes + 1)
    }

    /// Takes the task the caller launched for run number `run`, whose start hooks have run.
    package mutating func launched(_ task: Types.RunTask, run: Int) -> LaunchAction {
        // The run may have ended already (and another begun) when the task was quick.
        guard case .starting = phase, outcomes == run - 1 else { return .none }
        phase = .running(task)
        // A cancel racing the start left the task for the caller to cancel.
        return cancelRequested ? .cancelTask : .none
    }

    /// Stops the run in progress, once per run; a core never started fails at once.
    package mutating func cancel() -> CancelAction {
        if isFinished || cancelRequested { return .none }
        cancelRequested = true
        switch phase {
        case .idle:
            // Not startable any more; the failure the caller finishes with ends this run.
            phase = .starting
            return .fail(hooks: cancelHooks)
        case .waitingForSource:
            // The hooks cancel the source, which fails at once, and so does this core.
            phase = .following
            return .runHooks(cancelHooks)
        case .starting, .following, .finished:
            // Starting: `launched(_:run:)` sees the request and has the task cancelled.
            // Following: the hooks cancel the source, whose outcome finishes this core.
            return .runHooks(cancelHooks)
        case .running(let task):
            return .cancelTask(task, hooks: cancelHooks)
        }
    }

    /// Ends the run in progress with `outcome`; ignored when it has ended already. A derived
    /// core passes the number of the source's outcome it finishes from, and ignores one it
    /// has had.
    package mutating func finish(
        _ outcome: Types.Outcome, response: Types.Response?, sourceOutcome: Int? = nil
    ) -> FinishAction {
        var unannounced = false
        if let sourceOutcome {
            guard sourceOutcome > self.sourceOutcome else { return .none }
            self.sourceOutcome = sourceOutcome
            if sourceRun < sourceOutcome {
                // The announcement of this run comes later, from another thread: the run
                // begins and ends here, and the announcement will be ignored.
                sourceRun = sourceOutcome
                if case .following = phase {} else { unannounced = true }
            }
        } else {
            guard !isFinished else { return .none }
        }
        outcomes += 1
        result = outcome
        self.response = response
        phase = .finished
        let completing = fanout
        fanout = nil
        if unannounced {
            startQueued = true
            queued.append(.start(run: outcomes))
        }
        if isDraining || unannounced {
            // Handed out after the outcome before it (or after the start hooks).
            queued.append(.outcome(outcome, response: response, number: outcomes))
        } else {
            delivering = outcome
            deliveringResponse = response
            deliveringNumber = outcomes
            delivered = 0
        }
        let continues = sourceRun > self.sourceOutcome
        if continues {
            // A derived core whose source has begun its next run already: this core's next
            // run begins now, its start hooks after the handlers of this outcome.
            phase = .following
            cancelRequested = false
            startQueued = true
            queued.append(.start(run: outcomes + 1))
        } else if handlers.isEmpty && queued.isEmpty {
            return .ended(fanout: completing, continues: false, drain: .none)
        }
        return .ended(fanout: completing, continues: continues, drain: becomeDrainer())
    }

    // MARK: - Derived cores

    /// Registers a core derived from this one: `follower` learns of each run as it begins,
    /// and `handler` gets every outcome from the next one (or the current one when finished).
    package mutating func addFollower(_ follower: Types.Follower, handler: Types.Handler) -> FollowAction {
        let first = nextOutcome
        followers.append(follower)
        handlers.append(Handler(body: handler, once: false, from: first))
        let begun: Bool
        switch phase {
        case .idle, .waitingForSource: begun = false
        case .starting, .running, .following, .finished: begun = true
        }
        guard isFinished, !isDraining else { return FollowAction(first: first, announce: begun, drain: .none) }
        isDraining = true
        return FollowAction(first: first, announce: true, drain: .drain)
    }

    /// For a derived core, before anything reaches it: the first of its source's outcomes it
    /// gets is number `first`.
    package mutating func follow(from first: Int) {
        sourceOutcome = first - 1
        sourceRun = first - 1
    }

    /// For a derived core: its source began the run whose outcome will have number `run`. It
    /// begins a run too when it has none in progress (the first time, or again after it
    /// finished), and otherwise once the one in progress ends. An announcement that comes
    /// after its outcome (or twice) is ignored.
    ///
    /// Any action but ``StartAction/none`` means the core runs for its source until a
    /// ``FinishAction/ended(fanout:continues:drain:)`` that does not continue.
    package mutating func sourceBegan(run: Int) -> StartAction {
        guard run > sourceRun else { return .none }
        sourceRun = run
        let number = outcomes + (sourceRun - sourceOutcome)
        switch phase {
        case .waitingForSource, .finished: break
        default: return .announce(followers: followers, number: number)
        }
        phase = .following
        cancelRequested = false
        if isDraining {
            startQueued = true
            queued.append(.start(run: number))
            return .announce(followers: followers, number: number)
        }
        compactHandlers()
        return .begin(followers: followers, hooks: startHooks, number: number)
    }

    // MARK: - Handlers and hooks

    /// Adds a handler: it runs for the current outcome at once when finished, and for every
    /// later one; after earlier handlers each time. A handler `once` runs for one outcome
    /// only, then is dropped.
    package mutating func addHandler(_ body: Types.Handler, once: Bool) -> DrainAction {
        handlers.append(Handler(body: body, once: once, from: nextOutcome))
        guard isFinished else { return .none }
        return becomeDrainer()
    }

    /// Adds a hook that runs each time a run starts, and at once when one has started (or
    /// finished) already.
    package mutating func addStartHook(_ hook: Types.Hook) -> HookAction {
        startHooks.append(hook)
        switch phase {
        case .idle, .waitingForSource:
            return .none
        case .starting, .running, .following, .finished:
            // Queued start hooks have not run yet, and will run this one.
            return startQueued ? .none : .runNow
        }
    }

    /// Adds a hook that runs each time a run in progress is cancelled.
    package mutating func addCancelHook(_ hook: Types.Hook) {
        cancelHooks.append(hook)
    }

    // MARK: - Draining

    /// What the drainer does next, once it has run the handlers of its previous step: give
    /// the handlers not given it yet the outcome, or take the queued work; stops draining
    /// when there is none.
    package mutating func nextDrainStep() -> DrainStep {
        if let range = handedOut {
            retire(range, number: deliveringNumber)
            handedOut = nil
        }
        while true {
            if let outcome = delivering, delivered < handlers.count {
                let range = delivered..<handlers.count
                delivered = handlers.count
                handedOut = range
                return .deliver(Delivery(handlers: handlers, range: range, outcome: outcome, number: deliveringNumber))
            }
            guard !queued.isEmpty else {
                isDraining = false
                return .done
            }
            switch queued.removeFirst() {
            case .outcome(let outcome, let response, let number):
                delivering = outcome
                deliveringResponse = response
                deliveringNumber = number
                delivered = 0
            case .start(let run):
                startQueued = false
                compactHandlers()
                return .start(hooks: startHooks, run: run)
            }
        }
    }

    /// Makes the caller the drainer unless there is one.
    private mutating func becomeDrainer() -> DrainAction {
        guard !isDraining else { return .none }
        isDraining = true
        return .drain
    }

    /// Drops the one-shot handlers that have run; only while nothing is being delivered.
    private mutating func compactHandlers() {
        guard spent > 0 else { return }
        handlers.removeAll { $0.body == nil }
        spent = 0
        delivered = handlers.count
    }

    /// Marks the one-shot handlers among `range` spent once they have run for `number`.
    private mutating func retire(_ range: Range<Int>, number: Int) {
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

    // MARK: - Events

    /// Subscribes to the events of the run in progress, or to the completion of the latest
    /// run when finished.
    package func subscribe() -> Subscription {
        if isFinished { return .replay(result) }
        if let fanout { return .join(fanout) }
        return .create
    }

    /// Takes the fan-out the caller created for the events of the run in progress.
    package mutating func install(_ fanout: Types.Fanout) {
        self.fanout = fanout
    }

    /// Adds an observer of every later event.
    package mutating func addObserver(_ observer: Types.Observer) {
        observers.append(observer)
    }

    /// Keeps what subscribes a derived core to its source's events, for the first
    /// subscription or observer.
    package mutating func setConnector(_ connector: Types.Connector) {
        self.connector = connector
    }

    /// What subscribes a derived core to its source's events, once: `nil` afterwards.
    package mutating func takeConnector() -> Types.Connector? {
        defer { connector = nil }
        return connector
    }
}

/// Phases compare equal when their tasks do, so that tests can state the phase they expect.
extension RequestCoreMachine.Phase: Equatable where Types.RunTask: Equatable {}
