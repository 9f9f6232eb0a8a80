/// The kinds of value a ``RequestCoreMachine`` holds without looking inside them: it stores
/// them and hands them back in the actions it returns, and never calls, creates or inspects
/// one. `RequestCore` fills them with its tasks, closures and event fan-out; tests with plain
/// values.
///
/// Fill them with nominal types, a closure wrapped in a struct rather than a function type:
/// a function type given as a generic argument is held in its most general form, and
/// converting a closure to that form and back costs a thunk, an allocation, each way.
package protocol RequestCoreMachineTypes {
    /// The task launched for a run. Held while the run is in progress, handed back to be
    /// cancelled.
    associatedtype RunTask: Sendable
    /// How a run ended (its value or its error), as the handlers get it.
    associatedtype Outcome: Sendable
    /// The response a run ended with.
    associatedtype Response: Sendable
    /// Something that handles outcomes: a `success`, `failure` or `completion` handler, or an
    /// `await`.
    associatedtype Handler: Sendable
    /// A start hook, a cancel hook, or a handler registered with the cancellation of a run
    /// that runs in an awaiting task.
    associatedtype Hook: Sendable
    /// Receives the events of every run.
    associatedtype Observer: Sendable
    /// Hands the events of the run in progress to every subscriber.
    associatedtype Fanout: Sendable
}

/// The transitions of a request handle, as a value: every event (start, reload, cancel,
/// a claim of the run, finish, adding a handler or a hook, a view of the handle going away,
/// the drainer asking for its next step) is a mutating method that updates the state and
/// returns what the caller must do once it has let go of the lock: run these hooks, launch
/// run N, run the operation here, cancel this task, hand this outcome to these handlers, or
/// nothing.
///
/// It creates no task, takes no lock, calls no closure and reads no clock: `RequestCore`
/// keeps it in its lock and performs the actions, and the tests drive it with plain values.
///
/// A core runs its operation once per run: the first run begins with ``start()``, each later
/// one with ``reload()`` once the previous one has finished. A run that has begun has its
/// start hooks run, then (``begun(run:)``) either a task launched for it
/// (``launched(_:run:)``) or, when its operation may run in an awaiting task and nothing asks
/// for its outcome yet, none: it is pending until a task awaits the handle and runs the
/// operation itself (``claimForAwait()``), with no task made and no hand-over to another
/// thread and back, or until a handler, an observer, a subscription to the events or the
/// handle's release has the task launched (``launchPending()``). Once a task is launched, the operation runs in
/// whichever task claims the run first: that task (``claim(run:)``), or a task that awaits the
/// handle before it; the task that lost finds the run claimed and does nothing.
///
/// A cancel never cancels a task that awaits the handle: the code after its `await` must
/// go on uncancelled. It ends such a run through the run's cancellation instead
/// (`RequestCancellation`): what the operation waits on registers a handler with it
/// (``addScopeHandler(_:run:)``), and the cancel hands those handlers out
/// (``CancelAction/cancelScope(hooks:)``, ``takeScopeHandlers()``). Only a core whose
/// operation honours that cancellation lets an awaiting task claim its runs.
///
/// Handlers, start hooks, cancel hooks and observers stay registered across runs. Outcomes
/// are numbered from 1; a handler runs for every outcome from the one current when it was
/// added (when finished) or the next one (otherwise). Everything that must not overlap
/// (handlers, and the start hooks of a run that begins while the previous outcome is still
/// being handed out) runs on one thread at a time, the drainer, which takes its work from
/// ``nextDrainStep()`` until it says ``DrainStep/done``.
///
/// Registrations have an owner: `0` for the handle that made the core, another number for
/// each view of it (a handle made by `map`). When a view goes, ``ownerEnded(_:)`` drops what
/// it registered from the next run on: its handlers still get the outcome of a run in
/// progress, as the handlers of a handle nobody keeps always have.
package struct RequestCoreMachine<Types: RequestCoreMachineTypes>: Sendable {
    /// Where the core is in its runs.
    package enum Phase: Sendable {
        /// Never started.
        case idle
        /// A run has begun, its task not launched yet: its start hooks run (or wait for the
        /// drainer), its task is being launched, or a cancel before the first start is failing it.
        case starting
        /// A run has begun and its start hooks have run, and nothing runs its operation yet:
        /// the first task to await the handle runs it (``RequestCoreMachine/claimForAwait()``),
        /// and a handler, an observer, a subscription to the events or the handle's release
        /// has its task launched first (``RequestCoreMachine/launchPending()``). Only a core whose operation
        /// may run in an awaiting task gets here.
        case pending
        /// A run is in progress: its task has been launched; `nil` when a task that awaits the
        /// handle claimed the run and runs its operation.
        case running(Types.RunTask?)
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
        /// Who registered it: `0` for the handle that made the core, a view's number otherwise.
        package let owner: Int
    }

    /// Work queued behind the outcome the drainer is handing out.
    private enum Queued: Sendable {
        /// Run number `run` began: its start hooks run and its task is launched once the
        /// handlers have had the previous outcome.
        case start(run: Int)
        /// A run ended with this outcome.
        case outcome(Types.Outcome, response: Types.Response?, number: Int)
    }

    /// Callbacks in the order added, each with its owner, the first held inline: most
    /// handles have one at most, which then costs no array.
    package struct Callbacks<Element: Sendable>: Sendable, Sequence {
        /// The first callback added.
        private var first: (element: Element, owner: Int)?
        /// The callbacks added after the first.
        private var rest: [(element: Element, owner: Int)] = []

        /// No callbacks.
        package init() {}

        /// Adds `callback` after the others.
        mutating func append(_ callback: Element, owner: Int) {
            if first == nil { first = (callback, owner) } else { rest.append((callback, owner)) }
        }

        /// Takes the callback of `owner` out, keeping the order of the others; `nil` when
        /// there is none.
        mutating func remove(owner: Int) -> Element? {
            if let head = first, head.owner == owner {
                first = rest.isEmpty ? nil : rest.removeFirst()
                return head.element
            }
            guard let index = rest.firstIndex(where: { $0.owner == owner }) else { return nil }
            return rest.remove(at: index).element
        }

        /// Whether there is none.
        var isEmpty: Bool { first == nil }

        /// Moves the callbacks of `owners` to `removed`, keeping the order of the others.
        mutating func remove(ownedBy owners: [Int], into removed: inout [Element]) {
            var kept = Callbacks()
            for (element, owner) in entries {
                if owners.contains(owner) { removed.append(element) } else { kept.append(element, owner: owner) }
            }
            self = kept
        }

        /// Every callback with its owner, in the order added.
        private var entries: [(element: Element, owner: Int)] {
            guard let first else { return [] }
            return [first] + rest
        }

        /// The callbacks in the order added.
        package func makeIterator() -> Iterator {
            Iterator(first: first?.element, rest: rest.makeIterator())
        }

        /// Walks the callbacks in the order added.
        package struct Iterator: IteratorProtocol {
            /// The first callback, until it has been returned.
            fileprivate var first: Element?
            /// The others.
            fileprivate var rest: IndexingIterator<[(element: Element, owner: Int)]>

            /// The next callback.
            package mutating func next() -> Element? {
                if let callback = first {
                    first = nil
                    return callback
                }
                return rest.next()?.element
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
        /// Its response.
        package let response: Types.Response?
        /// Its number.
        package let number: Int

        /// A delivery of outcome `number` to `handlers[range]`.
        fileprivate init(
            handlers: [Handler], range: Range<Int>, outcome: Types.Outcome, response: Types.Response?, number: Int
        ) {
            self.handlers = handlers
            self.range = range
            self.outcome = outcome
            self.response = response
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

    /// What the registrations of views that went away left behind: the caller lets go of it
    /// once it has let go of the lock, since a closure released may release a handle whose
    /// going away takes the lock again.
    package struct Discarded: Sendable {
        /// Handlers.
        package fileprivate(set) var handlers: [Types.Handler] = []
        /// Start and cancel hooks.
        package fileprivate(set) var hooks: [Types.Hook] = []
        /// Observers.
        package fileprivate(set) var observers: [Types.Observer] = []

        /// Whether nothing was discarded.
        package var isEmpty: Bool { handlers.isEmpty && hooks.isEmpty && observers.isEmpty }
    }

    /// What the caller does after a run has been asked to begin.
    package enum StartAction: Sendable {
        /// Nothing: a run is in progress already, or the core cannot run now.
        case none
        /// Nothing yet: the run whose outcome will have `number` has begun, and its start
        /// hooks wait for the drainer, which launches its task after them.
        case queued(number: Int)
        /// Run `hooks`, then launch the task of the run whose outcome will have `number`.
        case begin(hooks: Callbacks<Types.Hook>, number: Int)
    }

    /// What the caller does with the task it launched for a run.
    package enum LaunchAction: Sendable {
        /// Nothing: the task runs (or finds the run claimed by an awaiting task).
        case none
        /// Cancel it: the run was cancelled while it was starting.
        case cancelTask
    }

    /// What the caller does to cancel the run in progress.
    package enum CancelAction: Sendable {
        /// Nothing: the core has finished, or this run was cancelled already.
        case none
        /// Run the cancel hooks; the run ends by other means (a task being launched is
        /// cancelled at launch, an operation that has returned finishes as it is).
        case runHooks(Callbacks<Types.Hook>)
        /// Run the cancel hooks, then cancel the run's task.
        case cancelTask(Types.RunTask, hooks: Callbacks<Types.Hook>)
        /// Run the cancel hooks, then the handlers registered with the run's cancellation
        /// (``RequestCoreMachine/takeScopeHandlers()``): the operation runs in a task that
        /// awaits the handle, which is left uncancelled. A handler registered from now on
        /// runs at once.
        case cancelScope(hooks: Callbacks<Types.Hook>)
        /// Run the cancel hooks, then finish the core with a cancellation: it never started.
        case fail(hooks: Callbacks<Types.Hook>)
    }

    /// What the caller does with a handler it registered with the cancellation of a run.
    package enum ScopeRegistration: Sendable, Equatable {
        /// Nothing now: the handler is kept under this number until
        /// ``RequestCoreMachine/removeScopeHandler(_:)``, and a cancel of the run hands it out.
        case kept(Int)
        /// Run it now: the run was cancelled already.
        case runNow
        /// Nothing: the run is over, or its operation does not run in an awaiting task (a
        /// cancel then cancels its task), so no cancel of the handle is for this handler.
        case ignored
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

    /// What the task that ran the operation while awaiting the handle does once its run has
    /// been given an outcome.
    package enum AwaitedFinishAction: Sendable {
        /// Wait for the outcome as any await does: the run had ended already.
        case wait
        /// The run ended: complete `fanout`'s subscriptions, then wait for the outcome as any
        /// await does, since another thread is handing an earlier outcome out and hands this
        /// one out after it.
        case queued(fanout: Types.Fanout?)
        /// The run ended: complete `fanout`'s subscriptions, then take outcome `number` as the
        /// drainer (apply a view's transform to it), drain, and return it.
        case take(fanout: Types.Fanout?, number: Int)
    }

    /// What the caller does once a run has been given an outcome.
    package enum FinishAction: Sendable {
        /// Nothing: the run had ended already.
        case none
        /// The run ended: complete `fanout`'s subscriptions with the outcome; become the
        /// drainer when `drain` says so.
        case ended(fanout: Types.Fanout?, drain: DrainAction)
    }

    /// The drainer's next piece of work.
    package enum DrainStep: Sendable {
        /// Hand the outcome to these handlers, in order.
        case deliver(Delivery)
        /// Run the start hooks, then launch the task of run number `run`.
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
    /// Whether a task has begun the operation of the run in progress: its own task, or one
    /// that awaits the handle.
    package private(set) var claimed = false
    /// Whether the operation of the run in progress runs in a task that awaits the handle.
    package private(set) var runsInAwaitingTask = false
    /// Whether a task that awaits the handle may claim a run: only when the operation
    /// honours the run's cancellation, since that task is never cancelled to stop it.
    package let allowsAwaitedRuns: Bool
    /// The handlers registered with the cancellation of the run in progress, numbered.
    package private(set) var scopeHandlers = Callbacks<Types.Hook>()
    /// The number of the last handler registered with a run's cancellation.
    private var lastScopeHandler = 0
    /// Whether the handle is suspended: what its run waits on holds still until it is resumed
    /// (see `RequestCoreMachine+Suspension.swift`).
    package internal(set) var isSuspended = false
    /// Whether the run in progress has been suspended at least once, so that a registration
    /// made after a resume learns it must not hold still; `false` for a run never suspended,
    /// whose registrations are told nothing.
    package internal(set) var suspensionChanged = false

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
    /// Work for the drainer after ``delivering``; empty unless a run began (or ended) while
    /// the previous outcome was being handed out.
    private var queued: [Queued] = []

    /// Receive the events of every run.
    package private(set) var observers = Callbacks<Types.Observer>()
    /// Run each time a run in progress is cancelled.
    package private(set) var cancelHooks = Callbacks<Types.Hook>()
    /// Run each time a run starts.
    package private(set) var startHooks = Callbacks<Types.Hook>()
    /// Created by the first subscription to the events during a run, so that a core nobody
    /// observes pays for no fan-out.
    package private(set) var fanout: Types.Fanout?
    /// Views that went away while their registrations could still be needed (during a run,
    /// or while outcomes are handed out): dropped when the next run begins.
    package private(set) var endedOwners: [Int] = []
    /// What was dropped, for the caller to let go of after the lock (``takeDiscarded()``).
    package private(set) var discarded: Discarded?

    /// A core that has never run; a task that awaits it may run its operation when
    /// `allowsAwaitedRuns` (the default).
    package init(allowsAwaitedRuns: Bool = true) {
        phase = .idle
        self.allowsAwaitedRuns = allowsAwaitedRuns
    }

    /// A core that has already finished with `outcome`, and cannot run.
    package init(finished outcome: Types.Outcome) {
        allowsAwaitedRuns = false
        phase = .finished
        result = outcome
        outcomes = 1
        delivering = outcome
        deliveringNumber = 1
    }

    /// Whether the latest run has ended.
    package var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    /// Whether the latest run has ended and its outcome has been handed out, with no run begun
    /// or queued since (a run begun leaves the finished phase).
    package var isSettled: Bool {
        isFinished && !isDraining
    }

    /// Whether anything takes the handle's events: an observer or a subscription.
    package var isObserved: Bool {
        !observers.isEmpty || fanout != nil
    }

    /// The number of the first outcome a handler added now runs for: the current one when
    /// finished, otherwise that of the run in progress (or the next one).
    package var nextOutcome: Int {
        isFinished ? outcomes : outcomes + 1
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
        claimed = false
        runsInAwaitingTask = false
        if isDraining {
            // The handlers still get the previous outcome: the drainer begins this run after
            // them, so that its start hooks follow their completion handlers.
            startQueued = true
            queued.append(.start(run: outcomes + 1))
            return .queued(number: outcomes + 1)
        }
        compactHandlers()
        return .begin(hooks: startHooks, number: outcomes + 1)
    }

    /// The start hooks of run number `run` have run: whether the caller launches its task now
    /// (`true`), or the run waits, pending, for the first task to await the handle (`false`).
    ///
    /// A run waits when its operation may run in an awaiting task and nothing asks for its
    /// outcome or watches it yet: no handler (an await's included), no observer, no
    /// subscription to its events. So a handle awaited as soon as it is made costs no task at
    /// all; a handler, an observer or a subscription added later, or the handle's release,
    /// launches the task then (``launchPending()``).
    package mutating func begun(run: Int) -> Bool {
        guard case .starting = phase, outcomes == run - 1 else { return false }
        // A cancel while the hooks ran is seen by the task at its launch, as before.
        guard allowsAwaitedRuns, !cancelRequested, handlers.isEmpty, observers.isEmpty, fanout == nil else {
            return true
        }
        phase = .pending
        return false
    }

    /// A handler, an observer, a subscription to the events or the handle's release asks for
    /// the pending run to be launched: the number of the run whose task the caller launches now, `nil`
    /// when no run is pending (it has no run, runs, or has a task already).
    package mutating func launchPending() -> Int? {
        guard case .pending = phase, !cancelRequested else { return nil }
        phase = .starting
        return outcomes + 1
    }

    /// Takes the task the caller launched for run number `run`, whose start hooks have run.
    package mutating func launched(_ task: Types.RunTask, run: Int) -> LaunchAction {
        // The run may have ended already (and another begun) when the task was quick.
        guard case .starting = phase, outcomes == run - 1 else { return .none }
        phase = .running(task)
        // A cancel racing the start left the task for the caller to cancel.
        return cancelRequested ? .cancelTask : .none
    }

    /// The task launched for run number `run` asks to run the operation: yes, unless a task
    /// that awaits the handle claimed the run first (or the run is over).
    package mutating func claim(run: Int) -> Bool {
        guard outcomes == run - 1, !claimed else { return false }
        switch phase {
        case .starting where !startQueued, .running: break
        default: return false
        }
        claimed = true
        return true
    }

    /// A task that awaits the handle asks to run the operation itself: the number of the
    /// outcome it will produce when awaited runs are allowed, the run is pending (no task was
    /// launched for it) or its task has been launched and has not begun, and the run was not
    /// cancelled; `nil` otherwise (it then waits for the outcome like any other handler). From
    /// then on a cancel goes through the run's cancellation
    /// (``CancelAction/cancelScope(hooks:)``), never to the awaiting task.
    package mutating func claimForAwait() -> Int? {
        switch phase {
        case .pending, .running(.some): break
        default: return nil
        }
        guard allowsAwaitedRuns, !claimed, !cancelRequested else { return nil }
        claimed = true
        runsInAwaitingTask = true
        phase = .running(nil)
        return outcomes + 1
    }

    /// A task that awaits a finished handle asks for its outcome: when nothing is being handed
    /// out, it takes the current outcome (with its response and number) at once, and becomes
    /// the drainer, so that it may apply a view's transform; it drains (which hands out what
    /// was added meanwhile, and lets the role go) before it returns. `nil` otherwise: it waits
    /// for the outcome like any other handler.
    package mutating func takeFinished() -> (outcome: Types.Outcome, response: Types.Response?, number: Int)? {
        guard isFinished, !isDraining, let result else { return nil }
        isDraining = true
        return (result, response, outcomes)
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
        case .pending:
            // Nothing runs the operation: the failure the caller finishes with ends this run.
            return .fail(hooks: cancelHooks)
        case .starting, .finished:
            // Starting: `launched(_:run:)` sees the request and has the task cancelled.
            return .runHooks(cancelHooks)
        case .running(let task):
            if runsInAwaitingTask { return .cancelScope(hooks: cancelHooks) }
            guard let task else { return .runHooks(cancelHooks) }
            return .cancelTask(task, hooks: cancelHooks)
        }
    }

    /// Cancels run number `run` as ``cancel()`` does, when it is the run in progress (or about
    /// to begin); nothing otherwise.
    package mutating func cancel(run: Int) -> CancelAction {
        guard outcomes == run - 1, !isFinished else { return .none }
        return cancel()
    }

    // MARK: - Cancellation of a run in an awaiting task

    /// Whether run number `run` is in progress in a task that awaits the handle.
    private func runsAwaited(_ run: Int) -> Bool {
        runsInAwaitingTask && outcomes == run - 1 && !isFinished
    }

    /// Whether run number `run`, in progress, was cancelled.
    package func isCancelled(run: Int) -> Bool {
        outcomes == run - 1 && !isFinished && cancelRequested
    }

    /// Registers `handler` with the cancellation of run number `run`, for as long as the
    /// operation waits on what it cancels.
    ///
    /// A handler that is `suspendable` (it also holds its wait still while the handle is
    /// suspended) is kept for a run in a task of its own too, for the suspension only: a cancel
    /// of such a run cancels its task.
    package mutating func addScopeHandler(
        _ handler: Types.Hook, run: Int, suspendable: Bool = false
    ) -> ScopeRegistration {
        guard runsAwaited(run) else {
            guard suspendable, outcomes == run - 1, !isFinished, !cancelRequested else { return .ignored }
            lastScopeHandler += 1
            scopeHandlers.append(handler, owner: lastScopeHandler)
            return .kept(lastScopeHandler)
        }
        if cancelRequested { return .runNow }
        lastScopeHandler += 1
        scopeHandlers.append(handler, owner: lastScopeHandler)
        return .kept(lastScopeHandler)
    }

    /// Takes out the handler registered as number `id`, once what it cancels is no longer
    /// waited on; `nil` when a cancel took it already.
    package mutating func removeScopeHandler(_ id: Int) -> Types.Hook? {
        scopeHandlers.remove(owner: id)
    }

    /// Takes out every handler registered with the run's cancellation, for a cancel to run
    /// (``CancelAction/cancelScope(hooks:)``).
    package mutating func takeScopeHandlers() -> Callbacks<Types.Hook> {
        defer { scopeHandlers = Callbacks() }
        return scopeHandlers
    }

    /// Ends the run in progress with `outcome`; ignored when it has ended already.
    package mutating func finish(_ outcome: Types.Outcome, response: Types.Response?) -> FinishAction {
        guard !isFinished else { return .none }
        outcomes += 1
        result = outcome
        self.response = response
        phase = .finished
        runsInAwaitingTask = false
        // A finished handle is not suspended; the next run starts moving.
        isSuspended = false
        suspensionChanged = false
        let completing = fanout
        fanout = nil
        if isDraining {
            // Handed out after the outcome before it (or after the start hooks).
            queued.append(.outcome(outcome, response: response, number: outcomes))
        } else {
            delivering = outcome
            deliveringResponse = response
            deliveringNumber = outcomes
            delivered = 0
        }
        if handlers.isEmpty && queued.isEmpty {
            return .ended(fanout: completing, drain: .none)
        }
        return .ended(fanout: completing, drain: becomeDrainer())
    }

    /// Ends the run in progress with `outcome` for the task that ran its operation while
    /// awaiting the handle: as ``finish(_:response:)``, and that task takes the outcome itself,
    /// as the drainer even with no handler to hand it to, so that it may apply a view's
    /// transform; it drains before it returns, as an await of a finished handle does
    /// (``takeFinished()``). So the await needs no handler of its own, nor a resumption. When
    /// another thread is handing an earlier outcome out, or the run had ended already, the task
    /// waits for the outcome as any await does.
    package mutating func finishAwaited(_ outcome: Types.Outcome, response: Types.Response?) -> AwaitedFinishAction {
        let handingOut = isDraining
        guard case .ended(let fanout, _) = finish(outcome, response: response) else { return .wait }
        if handingOut { return .queued(fanout: fanout) }
        isDraining = true
        return .take(fanout: fanout, number: outcomes)
    }

    // MARK: - Handlers and hooks

    /// Adds a handler: it runs for the current outcome at once when finished, and for every
    /// later one; after earlier handlers each time. A handler `once` runs for one outcome
    /// only, then is dropped.
    package mutating func addHandler(_ body: Types.Handler, once: Bool, owner: Int = 0) -> DrainAction {
        handlers.append(Handler(body: body, once: once, from: nextOutcome, owner: owner))
        guard isFinished else { return .none }
        return becomeDrainer()
    }

    /// Adds a hook that runs each time a run starts, and at once when one has started (or
    /// finished) already.
    package mutating func addStartHook(_ hook: Types.Hook, owner: Int = 0) -> HookAction {
        startHooks.append(hook, owner: owner)
        switch phase {
        case .idle:
            return .none
        case .starting, .pending, .running, .finished:
            // Queued start hooks have not run yet, and will run this one.
            return startQueued ? .none : .runNow
        }
    }

    /// Adds a hook that runs each time a run in progress is cancelled.
    package mutating func addCancelHook(_ hook: Types.Hook, owner: Int = 0) {
        cancelHooks.append(hook, owner: owner)
    }

    /// A view went away: what it registered is dropped now when nothing runs or is handed
    /// out, and otherwise when the next run begins, after its handlers had the outcome of the
    /// run in progress.
    package mutating func ownerEnded(_ owner: Int) {
        endedOwners.append(owner)
        let quiet: Bool
        switch phase {
        case .idle: quiet = true
        case .finished: quiet = !isDraining
        case .starting, .pending, .running: quiet = false
        }
        if quiet { compactHandlers() }
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
                return .deliver(
                    Delivery(
                        handlers: handlers, range: range, outcome: outcome, response: deliveringResponse,
                        number: deliveringNumber))
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

    /// Drops the one-shot handlers that have run and whatever views that went away
    /// registered; only while nothing is being delivered.
    private mutating func compactHandlers() {
        if !endedOwners.isEmpty {
            var dropped = discarded ?? Discarded()
            let ended = endedOwners
            endedOwners = []
            for index in handlers.indices where ended.contains(handlers[index].owner) {
                guard let body = handlers[index].body else { continue }
                dropped.handlers.append(body)
                handlers[index].body = nil
                spent += 1
            }
            startHooks.remove(ownedBy: ended, into: &dropped.hooks)
            cancelHooks.remove(ownedBy: ended, into: &dropped.hooks)
            observers.remove(ownedBy: ended, into: &dropped.observers)
            discarded = dropped.isEmpty ? discarded : dropped
        }
        guard spent > 0 else { return }
        handlers.removeAll { $0.body == nil }
        spent = 0
        delivered = handlers.count
    }

    /// What was dropped since the last call, for the caller to let go of once it has let go
    /// of the lock; `nil` when nothing was.
    package mutating func takeDiscarded() -> Discarded? {
        defer { discarded = nil }
        return discarded
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
    package mutating func addObserver(_ observer: Types.Observer, owner: Int = 0) {
        observers.append(observer, owner: owner)
    }
}

/// Phases compare equal when their tasks do, so that tests can state the phase they expect.
extension RequestCoreMachine.Phase: Equatable where Types.RunTask: Equatable {}
