import Testing
import Transport

/// The request handle's transitions, driven one event at a time with names in place of the
/// tasks, the closures and the event fan-out: no thread, no task, no sleep. Each test is a
/// script of events and the action each one returns, written out as text.
///
/// Checked to fail with each transition broken on purpose, every test by at least one: with
/// `reload()` beginning a run at once while the drainer works, the reload-while-draining
/// scripts get `begin 2` where they expect `queued 2`; with `launched(_:run:)` ignoring a
/// cancel while starting, `cancelWhileStartingCancelsTheTaskAtLaunch` gets `none`; with
/// one-shot handlers never retired, an `await` is handed the next outcome too; with
/// `claim(run:)` not checking the claim, the awaited-run scripts let the launched task run the
/// operation a second time; with `cancel()` cancelling the awaiting task's run as a task's
/// (`cancelTask`), or with `addScopeHandler(_:run:)` keeping handlers after a cancel or for
/// another run, the cancellation scripts fail; with
/// `ownerEnded(_:)` dropping at once during a run, the view scripts lose a handler's outcome;
/// with `takeFinished()` not making its caller the drainer, the handler added meanwhile is
/// not handed out; with `begun(run:)` always launching, the pending-run scripts get `launch`
/// where they expect `pending`; with it ignoring observers, the observed core is left pending.
@Suite struct RequestCoreMachineTests {
    /// Names in place of everything the machine holds without looking inside.
    enum Named: RequestCoreMachineTypes {
        /// A run's task.
        typealias RunTask = String
        /// A run's outcome.
        typealias Outcome = String
        /// A run's response.
        typealias Response = String
        /// A handler.
        typealias Handler = String
        /// A start or cancel hook.
        typealias Hook = String
        /// An observer.
        typealias Observer = String
        /// An event fan-out.
        typealias Fanout = String
    }

    /// The machine under test.
    typealias Machine = RequestCoreMachine<Named>

    /// One event for the machine.
    enum Event: CustomStringConvertible {
        /// ``RequestCoreMachine/start()``.
        case start
        /// ``RequestCoreMachine/reload()``.
        case reload
        /// ``RequestCoreMachine/cancel()``.
        case cancel
        /// The start hooks of run `run` have run: launch its task, or leave it pending.
        case begun(run: Int)
        /// A handler, a subscription or the handle's release asks for the pending run's task.
        case launchPending
        /// The caller launched `task` for run `run`.
        case launched(String, run: Int)
        /// The run ended with this outcome (its response is named after it).
        case finish(String)
        /// The task launched for run `run` asks to run the operation.
        case claim(run: Int)
        /// A task that awaits the handle asks to run the operation.
        case claimForAwait
        /// What the operation waits on registers `handler` with run `run`'s cancellation.
        case scopeHandler(String, run: Int)
        /// The registration numbered `id` is undone.
        case removeScopeHandler(Int)
        /// A cancel takes the handlers registered with the run's cancellation.
        case takeScopeHandlers
        /// Whether run `run`'s cancellation says it was cancelled.
        case isCancelled(run: Int)
        /// A view went away.
        case ownerEnded(Int)
        /// A handler for every outcome.
        case handler(String)
        /// A handler for every outcome, registered by view `owner`.
        case viewHandler(String, owner: Int)
        /// A one-shot handler, as an `await` adds.
        case oneShot(String)
        /// A start hook.
        case startHook(String)
        /// A cancel hook.
        case cancelHook(String)
        /// A start hook, a cancel hook and an observer, registered by view `owner`.
        case viewHooks(String, owner: Int)
        /// One step of the drainer.
        case drainStep
        /// The drainer's steps until it is done, joined by "; ".
        case drain

        /// The event, as the step of a script that fails names it.
        var description: String {
            switch self {
            case .start: "start"
            case .reload: "reload"
            case .cancel: "cancel"
            case .begun(let run): "run \(run) begun"
            case .launchPending: "launch the pending run"
            case .launched(let task, let run): "launched \(task) for run \(run)"
            case .finish(let outcome): "finish \(outcome)"
            case .claim(let run): "claim run \(run)"
            case .claimForAwait: "claim for await"
            case .scopeHandler(let handler, let run): "register \(handler) with run \(run)"
            case .removeScopeHandler(let id): "unregister \(id)"
            case .takeScopeHandlers: "take registered handlers"
            case .isCancelled(let run): "is run \(run) cancelled"
            case .ownerEnded(let owner): "owner \(owner) ended"
            case .handler(let name): "handler \(name)"
            case .viewHandler(let name, let owner): "handler \(name) of \(owner)"
            case .oneShot(let name): "await \(name)"
            case .startHook(let name): "start hook \(name)"
            case .cancelHook(let name): "cancel hook \(name)"
            case .viewHooks(let name, let owner): "hooks \(name) of \(owner)"
            case .drainStep: "drain step"
            case .drain: "drain"
            }
        }
    }

    /// Applies each event of `script` in turn and expects the action written beside it.
    static func play(
        _ machine: inout Machine, _ script: [(Event, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, (event, expected)) in script.enumerated() {
            let action = apply(event, to: &machine)
            #expect(action == expected, "step \(index + 1), \(event)", sourceLocation: sourceLocation)
        }
    }

    /// Applies `event` and describes the action it returned.
    static func apply(_ event: Event, to machine: inout Machine) -> String {
        switch event {
        case .start: return describe(machine.start())
        case .reload: return describe(machine.reload())
        case .cancel: return describe(machine.cancel())
        case .begun(let run): return machine.begun(run: run) ? "launch" : "pending"
        case .launchPending: return machine.launchPending().map { "launch \($0)" } ?? "none"
        case .launched(let task, let run): return describe(machine.launched(task, run: run))
        case .finish(let outcome): return describe(machine.finish(outcome, response: "\(outcome) response"))
        case .claim(let run): return machine.claim(run: run) ? "claimed" : "refused"
        case .claimForAwait: return machine.claimForAwait().map { "run \($0) here" } ?? "wait"
        case .scopeHandler(let handler, let run):
            switch machine.addScopeHandler(handler, run: run) {
            case .kept(let id): return "kept as \(id)"
            case .runNow: return "run now"
            case .ignored: return "ignored"
            }
        case .removeScopeHandler(let id): return machine.removeScopeHandler(id).map { "removed \($0)" } ?? "none"
        case .takeScopeHandlers: return list(machine.takeScopeHandlers())
        case .isCancelled(let run): return machine.isCancelled(run: run) ? "yes" : "no"
        case .ownerEnded(let owner):
            machine.ownerEnded(owner)
            return "none"
        case .handler(let name): return describe(machine.addHandler(name, once: false))
        case .viewHandler(let name, let owner): return describe(machine.addHandler(name, once: false, owner: owner))
        case .oneShot(let name): return describe(machine.addHandler(name, once: true))
        case .startHook(let name): return describe(machine.addStartHook(name))
        case .cancelHook(let name):
            machine.addCancelHook(name)
            return "none"
        case .viewHooks(let name, let owner):
            machine.addCancelHook("\(name) cancel", owner: owner)
            machine.addObserver("\(name) observer", owner: owner)
            return describe(machine.addStartHook("\(name) start", owner: owner))
        case .drainStep: return describe(machine.nextDrainStep())
        case .drain:
            var steps: [String] = []
            while true {
                let step = machine.nextDrainStep()
                steps.append(describe(step))
                if case .done = step { return steps.joined(separator: "; ") }
                guard steps.count < 100 else { return steps.joined(separator: "; ") + "; endless" }
            }
        }
    }

    // MARK: - Describing actions

    /// `[a, b]`.
    static func list(_ names: some Sequence<String>) -> String {
        "[" + names.joined(separator: ", ") + "]"
    }

    /// What a start or a reload asks for.
    static func describe(_ action: Machine.StartAction) -> String {
        switch action {
        case .none: "none"
        case .queued(let number): "queued \(number)"
        case .begin(let hooks, let number): "begin \(number): run \(list(hooks))"
        }
    }

    /// What a launch asks for.
    static func describe(_ action: Machine.LaunchAction) -> String {
        switch action {
        case .none: "none"
        case .cancelTask: "cancel task"
        }
    }

    /// What a cancel asks for.
    static func describe(_ action: Machine.CancelAction) -> String {
        switch action {
        case .none: "none"
        case .runHooks(let hooks): "run \(list(hooks))"
        case .cancelTask(let task, let hooks): "run \(list(hooks)), cancel \(task)"
        case .cancelScope(let hooks): "run \(list(hooks)), cancel the scope"
        case .fail(let hooks): "run \(list(hooks)), fail"
        }
    }

    /// What a start hook's registration asks for.
    static func describe(_ action: Machine.HookAction) -> String {
        switch action {
        case .none: "none"
        case .runNow: "run now"
        }
    }

    /// Whether a handler's registration makes the caller the drainer.
    static func describe(_ action: Machine.DrainAction) -> String {
        switch action {
        case .none: "none"
        case .drain: "drain"
        }
    }

    /// What a finish asks for.
    static func describe(_ action: Machine.FinishAction) -> String {
        switch action {
        case .none:
            return "none"
        case .ended(let fanout, let drain):
            var parts = ["ended"]
            if let fanout { parts.append("complete \(fanout)") }
            if case .drain = drain { parts.append("drain") }
            return parts.joined(separator: ", ")
        }
    }

    /// The drainer's work.
    static func describe(_ step: Machine.DrainStep) -> String {
        switch step {
        case .deliver(let delivery):
            let names = delivery.map { $0.once ? "\($0.body) once" : $0.body }
            return "deliver \(delivery.outcome)#\(delivery.number) to \(list(names))"
        case .start(let hooks, let run): return "start \(run): run \(list(hooks))"
        case .done: return "done"
        }
    }

    // MARK: - Starting

    @Test func startFromIdleRunsTheStartHooksThenLaunchesRunOne() {
        var machine = Machine()
        #expect(machine.phase == .idle)
        Self.play(
            &machine,
            [
                (.startHook("s1"), "none"),
                (.startHook("s2"), "none"),
                (.start, "begin 1: run [s1, s2]"),
            ])
        #expect(machine.phase == .starting)
        #expect(machine.nextOutcome == 1)
        Self.play(
            &machine,
            [
                (.launched("task 1", run: 1), "none"),
                (.startHook("s3"), "run now"),
            ])
        #expect(machine.phase == .running("task 1"))
        #expect(Array(machine.startHooks) == ["s1", "s2", "s3"])
    }

    @Test func startTwiceBeginsOneRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.start, "none"),
                (.reload, "none"),
                (.launched("task 1", run: 1), "none"),
                (.start, "none"),
                (.reload, "none"),
            ])
        #expect(machine.phase == .running("task 1"))
        #expect(machine.outcomes == 0)
    }

    @Test func aLaunchAfterItsRunEndedIsIgnored() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                // The task was quick: it finished before its launch was recorded.
                (.finish("ok"), "ended"),
                (.launched("task 1", run: 1), "none"),
            ])
        #expect(machine.phase == .finished)
        #expect(machine.result == "ok")
    }

    // MARK: - Cancelling

    @Test func cancelBeforeStartFailsNow() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c"), "none"),
                (.oneShot("a"), "none"),
                (.cancel, "run [c], fail"),
            ])
        #expect(machine.phase == .starting)
        #expect(machine.cancelRequested)
        Self.play(
            &machine,
            [
                (.start, "none"),
                (.cancel, "none"),
                (.finish("cancelled"), "ended, drain"),
                (.drain, "deliver cancelled#1 to [a once]; done"),
            ])
        #expect(machine.phase == .finished)
        #expect(machine.outcomes == 1)
    }

    @Test func cancelWhileStartingCancelsTheTaskAtLaunch() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c"), "none"),
                (.start, "begin 1: run []"),
                (.cancel, "run [c]"),
                (.cancel, "none"),
                (.launched("task 1", run: 1), "cancel task"),
            ])
        #expect(machine.phase == .running("task 1"))
    }

    @Test func cancelWhileRunningCancelsTheTaskOncePerRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c1"), "none"),
                (.cancelHook("c2"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.cancel, "run [c1, c2], cancel task 1"),
                (.cancel, "none"),
                (.finish("cancelled"), "ended"),
                (.cancel, "none"),
                (.reload, "begin 2: run []"),
                (.launched("task 2", run: 2), "none"),
                (.cancel, "run [c1, c2], cancel task 2"),
            ])
        #expect(machine.cancelRequested)
    }

    // MARK: - Finishing and handlers

    @Test func aHandlerAddedAfterTheFinishRunsAtOnce() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("ok"), "ended"),
                (.handler("a"), "drain"),
                (.drain, "deliver ok#1 to [a]; done"),
                (.oneShot("b"), "drain"),
                (.drain, "deliver ok#1 to [b once]; done"),
            ])
        #expect(machine.handlers.map(\.body) == ["a", nil])
        #expect(machine.isDraining == false)
    }

    @Test func aFinishedCoreHandsItsOutcomeToEachHandlerAdded() {
        var machine = Machine(finished: "ok")
        Self.play(
            &machine,
            [
                (.handler("a"), "drain"),
                // Another thread adds one while the first is being handed out.
                (.drainStep, "deliver ok#1 to [a]"),
                (.handler("b"), "none"),
                (.drainStep, "deliver ok#1 to [b]"),
                (.drainStep, "done"),
            ])
        #expect(machine.outcomes == 1)
    }

    @Test func handlersAddedBeforeTheFinishRunInOrderAndOnceHandlersRetire() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("a"), "none"),
                (.oneShot("b"), "none"),
                (.handler("c"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [a, b once, c]; done"),
            ])
        #expect(machine.handlers.map(\.body) == ["a", nil, "c"])
        Self.play(
            &machine,
            [
                (.reload, "begin 2: run []"),
                (.launched("task 2", run: 2), "none"),
                (.finish("two"), "ended, drain"),
                (.drain, "deliver two#2 to [a, c]; done"),
            ])
        #expect(machine.handlers.map(\.body) == ["a", "c"])
    }

    @Test func anAwaitDuringARunWaitsForItsOutcome() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended"),
                (.reload, "begin 2: run []"),
                (.oneShot("b"), "none"),
                (.launched("task 2", run: 2), "none"),
                (.finish("two"), "ended, drain"),
                (.drain, "deliver two#2 to [b once]; done"),
            ])
        // Every handler has run once: the list is let go.
        #expect(machine.handlers.isEmpty)
    }

    @Test func finishTwiceKeepsTheFirstOutcome() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("a"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("ok"), "ended, drain"),
                (.finish("late"), "none"),
                (.drain, "deliver ok#1 to [a]; done"),
            ])
        #expect(machine.result == "ok")
        #expect(machine.response == "ok response")
        #expect(machine.outcomes == 1)
    }

    // MARK: - Reloading

    @Test func reloadAfterTheFinishBeginsTheNextRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.startHook("s"), "none"),
                (.handler("t"), "none"),
                (.start, "begin 1: run [s]"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [t]; done"),
                (.reload, "begin 2: run [s]"),
                (.reload, "none"),
            ])
        #expect(machine.phase == .starting)
        #expect(machine.nextOutcome == 2)
        #expect(machine.result == "one")
    }

    @Test func reloadWhileTheOutcomeIsHandedOutQueuesTheStartBehindTheHandlers() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.startHook("s"), "none"),
                (.handler("a"), "none"),
                (.handler("b"), "none"),
                (.start, "begin 1: run [s]"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [a, b]"),
                // A handler reloads: run 2 begins now, its start hooks wait.
                (.reload, "queued 2"),
                (.startHook("late"), "none"),
                (.handler("c"), "none"),
            ])
        #expect(machine.phase == .starting)
        #expect(machine.startQueued)
        Self.play(
            &machine,
            [
                // The handler added for run 2 is not given outcome 1.
                (.drainStep, "deliver one#1 to []"),
                (.drainStep, "start 2: run [s, late]"),
                (.launched("task 2", run: 2), "none"),
                (.drainStep, "done"),
                (.finish("two"), "ended, drain"),
                (.drain, "deliver two#2 to [a, b, c]; done"),
            ])
        #expect(machine.startQueued == false)
    }

    @Test func anOutcomeThatEndsWhileTheLastIsHandedOutWaitsItsTurn() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("a"), "none"),
                (.start, "begin 1: run []"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [a]"),
                (.reload, "queued 2"),
                (.drainStep, "start 2: run []"),
                (.launched("task 2", run: 2), "none"),
                // Run 2 ends before the drainer is done: its outcome queues.
                (.finish("two"), "ended"),
                (.drain, "deliver two#2 to [a]; done"),
            ])
        #expect(machine.deliveringNumber == 2)
        #expect(machine.deliveringResponse == "two response")
    }

    // MARK: - Claiming a run

    @Test func aTaskThatClaimsItsRunRunsItAndAnAwaitAfterThatWaits() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claim(run: 1), "claimed"),
                (.claim(run: 1), "refused"),
                (.claimForAwait, "wait"),
                (.oneShot("a"), "none"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [a once]; done"),
            ])
        #expect(machine.phase == .finished)
    }

    @Test func anAwaitBeforeTheTaskBeginsRunsTheOperationAndTheTaskFindsItClaimed() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "run 1 here"),
                (.claimForAwait, "wait"),
                (.oneShot("b"), "none"),
                (.claim(run: 1), "refused"),
            ])
        #expect(machine.phase == .running(nil))
        #expect(machine.runsInAwaitingTask)
        Self.play(
            &machine,
            [
                // The awaiting task's own await joins the handlers as the run ends.
                (.finish("one"), "ended, drain"),
                (.oneShot("a"), "none"),
                (.drain, "deliver one#1 to [h, b once, a once]; done"),
            ])
        #expect(machine.runsInAwaitingTask == false)
    }

    // MARK: - Pending runs

    @Test func aRunNobodyAsksForWaitsForAnAwaitWhichRunsItWithoutATask() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.startHook("s"), "none"),
                (.start, "begin 1: run [s]"),
                (.begun(run: 1), "pending"),
            ])
        #expect(machine.phase == .pending)
        Self.play(
            &machine,
            [
                (.startHook("late"), "run now"),
                (.claimForAwait, "run 1 here"),
                // Claimed: a handler added now, or the handle's release, launches nothing.
                (.handler("h"), "none"),
                (.launchPending, "none"),
                (.claimForAwait, "wait"),
            ])
        #expect(machine.phase == .running(nil))
        #expect(machine.runsInAwaitingTask)
        Self.play(
            &machine,
            [
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [h]; done"),
            ])
    }

    @Test func aHandlerOrAReleaseLaunchesThePendingRunOnce() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.begun(run: 1), "pending"),
                (.launchPending, "launch 1"),
                (.launchPending, "none"),
                (.claimForAwait, "wait"),
                (.launched("task 1", run: 1), "none"),
                // An await before the task begins still runs the operation itself.
                (.claimForAwait, "run 1 here"),
                (.claim(run: 1), "refused"),
            ])
        #expect(machine.phase == .running(nil))
    }

    @Test func aRunWhoseOutcomeIsAskedForOrWhoseOperationMayNotRunInAnAwaitingTaskLaunchesAtOnce() {
        var handled = Machine()
        Self.play(
            &handled,
            [
                (.handler("h"), "none"),
                (.start, "begin 1: run []"),
                (.begun(run: 1), "launch"),
            ])
        #expect(handled.phase == .starting)

        var observed = Machine()
        observed.addObserver("o")
        Self.play(&observed, [(.start, "begin 1: run []"), (.begun(run: 1), "launch")])

        var subscribed = Machine()
        _ = subscribed.start()
        #expect(Self.describe(subscribed.subscribe()) == "create")
        subscribed.install("fanout 1")
        Self.play(&subscribed, [(.begun(run: 1), "launch")])

        var ownTask = Machine(allowsAwaitedRuns: false)
        Self.play(
            &ownTask,
            [
                (.start, "begin 1: run []"),
                (.begun(run: 1), "launch"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "wait"),
                (.claim(run: 1), "claimed"),
            ])
    }

    @Test func cancellingAPendingRunFailsItWithoutATask() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c"), "none"),
                (.start, "begin 1: run []"),
                (.begun(run: 1), "pending"),
                (.cancel, "run [c], fail"),
                (.launchPending, "none"),
                (.claimForAwait, "wait"),
                (.oneShot("a"), "none"),
                (.finish("cancelled"), "ended, drain"),
                (.drain, "deliver cancelled#1 to [a once]; done"),
            ])
        #expect(machine.phase == .finished)
    }

    @Test func aReloadByAHandlerLaunchesItsRunOnceTheHandlersHaveRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.start, "begin 1: run []"),
                (.begun(run: 1), "launch"),
                (.launched("task 1", run: 1), "none"),
                (.claim(run: 1), "claimed"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [h]"),
                (.reload, "queued 2"),
                (.drainStep, "start 2: run []"),
                // The handler wants the outcome: the task is launched, not left pending.
                (.begun(run: 2), "launch"),
            ])
    }

    @Test func aTaskThatBeginsBeforeItsLaunchIsRecordedClaimsTheRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.claimForAwait, "wait"),
                (.claim(run: 1), "claimed"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "wait"),
            ])
        #expect(machine.phase == .running("task 1"))
    }

    @Test func anAwaitDoesNotClaimACancelledRunAndItsTaskRunsIt() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.cancel, "run [], cancel task 1"),
                (.claimForAwait, "wait"),
                (.claim(run: 1), "claimed"),
            ])
    }

    @Test func aTaskOfAnEarlierRunFindsNothingToClaim() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "run 1 here"),
                (.finish("one"), "ended"),
                (.reload, "begin 2: run []"),
                (.claim(run: 1), "refused"),
                (.launched("task 2", run: 2), "none"),
                (.claim(run: 1), "refused"),
                (.claim(run: 2), "claimed"),
            ])
    }

    @Test func aRunThatBeginsWhileTheDrainerWorksIsClaimedOnlyOnceLaunched() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claim(run: 1), "claimed"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [h]"),
                (.reload, "queued 2"),
                (.claim(run: 2), "refused"),
                (.claimForAwait, "wait"),
                (.drainStep, "start 2: run []"),
                (.launched("task 2", run: 2), "none"),
                (.claimForAwait, "run 2 here"),
            ])
    }

    @Test func anAwaitOnAFinishedCoreTakesItsOutcomeAsTheDrainer() {
        var machine = Machine()
        Self.play(&machine, [(.start, "begin 1: run []"), (.launched("task 1", run: 1), "none")])
        let running = machine.takeFinished()
        #expect(running == nil)
        Self.play(&machine, [(.claim(run: 1), "claimed"), (.finish("one"), "ended")])
        let taken = machine.takeFinished()
        #expect(taken?.outcome == "one")
        #expect(taken?.response == "one response")
        #expect(taken?.number == 1)
        #expect(machine.isDraining)
        // Another await meanwhile waits for the drainer, and a handler added meanwhile is
        // handed the outcome before the drainer lets go.
        let meanwhile = machine.takeFinished()
        #expect(meanwhile == nil)
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.drain, "deliver one#1 to [h]; done"),
            ])
        let again = machine.takeFinished()
        #expect(again?.number == 1)
    }

    @Test func aCancelOfARunInAnAwaitingTaskGoesToItsScopeNotToATask() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                // Not in an awaiting task yet: nothing for the scope.
                (.scopeHandler("early", run: 1), "ignored"),
                (.claimForAwait, "run 1 here"),
                (.scopeHandler("transfer", run: 1), "kept as 1"),
                (.scopeHandler("wait", run: 1), "kept as 2"),
                (.removeScopeHandler(2), "removed wait"),
                (.scopeHandler("retry", run: 1), "kept as 3"),
                (.isCancelled(run: 1), "no"),
                (.cancel, "run [c], cancel the scope"),
                (.cancel, "none"),
                (.isCancelled(run: 1), "yes"),
                (.takeScopeHandlers, "[transfer, retry]"),
                (.takeScopeHandlers, "[]"),
                // Taken by the cancel: undoing them finds nothing.
                (.removeScopeHandler(1), "none"),
                // Registered after the cancel: runs at once, is not kept.
                (.scopeHandler("next", run: 1), "run now"),
                (.takeScopeHandlers, "[]"),
                (.finish("cancelled"), "ended"),
                (.isCancelled(run: 1), "no"),
                (.scopeHandler("late", run: 1), "ignored"),
            ])
    }

    @Test func aScopeOfAnEarlierRunTakesNoHandlerAndSaysNothingOfTheNextRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "run 1 here"),
                (.finish("one"), "ended"),
                (.reload, "begin 2: run []"),
                (.launched("task 2", run: 2), "none"),
                (.claimForAwait, "run 2 here"),
                (.scopeHandler("stale", run: 1), "ignored"),
                (.cancel, "run [], cancel the scope"),
                (.isCancelled(run: 1), "no"),
                (.isCancelled(run: 2), "yes"),
            ])
    }

    @Test func aRunInItsOwnTaskIsCancelledAsATaskAndKeepsNoScopeHandler() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claim(run: 1), "claimed"),
                (.scopeHandler("transfer", run: 1), "ignored"),
                (.cancel, "run [], cancel task 1"),
                (.isCancelled(run: 1), "yes"),
            ])
    }

    @Test func aCoreThatDoesNotAllowAwaitedRunsLeavesTheRunToItsTask() {
        var machine = Machine(allowsAwaitedRuns: false)
        Self.play(
            &machine,
            [
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "wait"),
                (.oneShot("a"), "none"),
                (.claim(run: 1), "claimed"),
                (.cancel, "run [], cancel task 1"),
            ])
        #expect(machine.runsInAwaitingTask == false)
    }

    @Test func aCancelAfterTheAwaitingTaskFinishedTheRunDoesNothing() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.cancelHook("c"), "none"),
                (.start, "begin 1: run []"),
                (.launched("task 1", run: 1), "none"),
                (.claimForAwait, "run 1 here"),
                (.finish("one"), "ended"),
                (.cancel, "none"),
            ])
        #expect(machine.phase == .finished)
        #expect(machine.result == "one")
    }

    // MARK: - Views

    @Test func whatAViewRegisteredRunsForTheRunInProgressThenGoes() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.handler("a"), "none"),
                (.startHook("s"), "none"),
                (.viewHandler("v", owner: 7), "none"),
                (.viewHooks("v", owner: 7), "none"),
                (.viewHandler("b", owner: 8), "none"),
                (.start, "begin 1: run [s, v start]"),
                (.launched("task 1", run: 1), "none"),
                (.ownerEnded(7), "none"),
                (.cancel, "run [v cancel], cancel task 1"),
            ])
        #expect(Array(machine.observers) == ["v observer"])
        #expect(machine.discarded == nil)
        Self.play(
            &machine,
            [
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [a, v, b]; done"),
                (.reload, "begin 2: run [s]"),
                (.launched("task 2", run: 2), "none"),
                (.finish("two"), "ended, drain"),
                (.drain, "deliver two#2 to [a, b]; done"),
            ])
        #expect(Array(machine.observers).isEmpty)
        let discarded = machine.takeDiscarded()
        #expect(discarded?.handlers == ["v"])
        #expect(discarded?.hooks == ["v start", "v cancel"])
        #expect(discarded?.observers == ["v observer"])
        #expect(machine.takeDiscarded() == nil)
    }

    @Test func aViewThatGoesWhileNothingRunsTakesItsRegistrationsAtOnce() {
        var machine = Machine(finished: "ok")
        Self.play(
            &machine,
            [
                (.viewHandler("v", owner: 3), "drain"),
                (.drainStep, "deliver ok#1 to [v]"),
                // Being handed out: it stays until the drainer is done, and the next run.
                (.ownerEnded(3), "none"),
                (.drainStep, "done"),
            ])
        #expect(machine.handlers.map(\.body) == ["v"])
        Self.play(&machine, [(.viewHooks("w", owner: 4), "run now"), (.ownerEnded(4), "none")])
        #expect(machine.takeDiscarded()?.hooks == ["w start", "w cancel"])
        var idle = Machine()
        Self.play(&idle, [(.viewHandler("v", owner: 5), "none"), (.ownerEnded(5), "none")])
        #expect(idle.handlers.isEmpty)
        #expect(idle.takeDiscarded()?.handlers == ["v"])
    }

    // MARK: - Events

    @Test func subscriptionsShareOneFanoutPerRunAndReplayTheCompletionAfterIt() {
        var machine = Machine()
        _ = machine.start()
        #expect(Self.describe(machine.subscribe()) == "create")
        machine.install("fanout 1")
        #expect(Self.describe(machine.subscribe()) == "join fanout 1")
        Self.play(&machine, [(.finish("ok"), "ended, complete fanout 1")])
        #expect(machine.fanout == nil)
        #expect(Self.describe(machine.subscribe()) == "replay ok")
        Self.play(&machine, [(.reload, "begin 2: run []")])
        #expect(Self.describe(machine.subscribe()) == "create")
    }

    /// What a subscription to the events gets.
    static func describe(_ subscription: Machine.Subscription) -> String {
        switch subscription {
        case .replay(let outcome): "replay \(outcome ?? "nothing")"
        case .join(let fanout): "join \(fanout)"
        case .create: "create"
        }
    }
}
