import Testing
import Transport

/// The request handle's transitions, driven one event at a time with names in place of the
/// task, the closures and the event fan-out: no thread, no task, no sleep. Each test is a
/// script of events and the action each one returns, written out as text.
///
/// Checked to fail with each transition broken on purpose, every test by at least one: with
/// `reload()` beginning a run at once while the drainer works, the reload-while-draining
/// scripts get `begin 2` where they expect `announce 2`; with `launched(_:run:)` ignoring a
/// cancel while starting, `cancelWhileStartingCancelsTheTaskAtLaunch` gets `none`; with
/// `sourceBegan(run:)` taking an announcement it has had, both derived scripts that repeat
/// one count a run twice; with one-shot handlers never retired, an `await` is handed the
/// next outcome too.
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
        /// A derived core's follower.
        typealias Follower = String
        /// An observer.
        typealias Observer = String
        /// A connection to a source's events.
        typealias Connector = String
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
        /// The caller launched `task` for run `run`.
        case launched(String, run: Int)
        /// The run ended with this outcome (its response is named after it).
        case finish(String)
        /// A derived core's source ended run `number` with this outcome.
        case sourceFinished(String, number: Int)
        /// A derived core's source began run `run`.
        case sourceBegan(Int)
        /// A handler for every outcome.
        case handler(String)
        /// A one-shot handler, as an `await` adds.
        case oneShot(String)
        /// A start hook.
        case startHook(String)
        /// A cancel hook.
        case cancelHook(String)
        /// A core derived from this one: its follower and its handler.
        case follower(String, handler: String)
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
            case .launched(let task, let run): "launched \(task) for run \(run)"
            case .finish(let outcome): "finish \(outcome)"
            case .sourceFinished(let outcome, let number): "source finished \(outcome)#\(number)"
            case .sourceBegan(let run): "source began \(run)"
            case .handler(let name): "handler \(name)"
            case .oneShot(let name): "await \(name)"
            case .startHook(let name): "start hook \(name)"
            case .cancelHook(let name): "cancel hook \(name)"
            case .follower(let name, let handler): "follower \(name) with handler \(handler)"
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
        case .launched(let task, let run): return describe(machine.launched(task, run: run))
        case .finish(let outcome): return describe(machine.finish(outcome, response: "\(outcome) response"))
        case .sourceFinished(let outcome, let number):
            return describe(machine.finish(outcome, response: "\(outcome) response", sourceOutcome: number))
        case .sourceBegan(let run): return describe(machine.sourceBegan(run: run))
        case .handler(let name): return describe(machine.addHandler(name, once: false))
        case .oneShot(let name): return describe(machine.addHandler(name, once: true))
        case .startHook(let name): return describe(machine.addStartHook(name))
        case .cancelHook(let name):
            machine.addCancelHook(name)
            return "none"
        case .follower(let name, let handler): return describe(machine.addFollower(name, handler: handler))
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

    /// What a start, a reload or a source's run beginning asks for.
    static func describe(_ action: Machine.StartAction) -> String {
        switch action {
        case .none: "none"
        case .announce(let followers, let number): "announce \(number) to \(list(followers))"
        case .begin(let followers, let hooks, let number):
            "begin \(number): tell \(list(followers)), run \(list(hooks))"
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
        case .ended(let fanout, let continues, let drain):
            var parts = ["ended"]
            if let fanout { parts.append("complete \(fanout)") }
            if continues { parts.append("continues") }
            if case .drain = drain { parts.append("drain") }
            return parts.joined(separator: ", ")
        }
    }

    /// What a follower's registration asks for.
    static func describe(_ action: Machine.FollowAction) -> String {
        var parts = ["first \(action.first)"]
        if action.announce { parts.append("announce") }
        if case .drain = action.drain { parts.append("drain") }
        return parts.joined(separator: ", ")
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
                (.start, "begin 1: tell [], run [s1, s2]"),
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
                (.start, "begin 1: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
                (.launched("task 1", run: 1), "none"),
                (.cancel, "run [c1, c2], cancel task 1"),
                (.cancel, "none"),
                (.finish("cancelled"), "ended"),
                (.cancel, "none"),
                (.reload, "begin 2: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [a, b once, c]; done"),
            ])
        #expect(machine.handlers.map(\.body) == ["a", nil, "c"])
        Self.play(
            &machine,
            [
                (.reload, "begin 2: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended"),
                (.reload, "begin 2: tell [], run []"),
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
                (.start, "begin 1: tell [], run []"),
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
                (.follower("f", handler: "t"), "first 1"),
                (.start, "begin 1: tell [f], run [s]"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [t]; done"),
                (.reload, "begin 2: tell [f], run [s]"),
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
                (.follower("f", handler: "a"), "first 1"),
                (.handler("b"), "none"),
                (.start, "begin 1: tell [f], run [s]"),
                (.launched("task 1", run: 1), "none"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [a, b]"),
                // A handler reloads: followers learn of run 2 now, its start hooks wait.
                (.reload, "announce 2 to [f]"),
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
                (.start, "begin 1: tell [], run []"),
                (.finish("one"), "ended, drain"),
                (.drainStep, "deliver one#1 to [a]"),
                (.reload, "announce 2 to []"),
                (.drainStep, "start 2: run []"),
                (.launched("task 2", run: 2), "none"),
                // Run 2 ends before the drainer is done: its outcome queues.
                (.finish("two"), "ended"),
                (.drain, "deliver two#2 to [a]; done"),
            ])
        #expect(machine.deliveringNumber == 2)
        #expect(machine.deliveringResponse == "two response")
    }

    // MARK: - Derived cores

    @Test func aSourceTellsItsFollowerOfRunsBegunAlready() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.start, "begin 1: tell [], run []"),
                (.follower("f", handler: "t"), "first 1, announce"),
                (.finish("one"), "ended, drain"),
                (.drain, "deliver one#1 to [t]; done"),
                // Finished: the follower gets the current outcome at once.
                (.follower("g", handler: "u"), "first 1, announce, drain"),
                (.drain, "deliver one#1 to [u]; done"),
            ])
        #expect(Array(machine.followers) == ["f", "g"])
    }

    @Test func derivedAnnouncementBeforeItsOutcome() {
        var machine = Machine(derivedStartingImmediately: false)
        #expect(machine.isWaitingForSource)
        machine.follow(from: 1)
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.startHook("s"), "none"),
                (.sourceBegan(1), "begin 1: tell [], run [s]"),
                (.sourceBegan(1), "none"),
                (.startHook("s2"), "run now"),
                (.sourceFinished("v", number: 1), "ended, drain"),
                (.sourceFinished("v", number: 1), "none"),
                (.drain, "deliver v#1 to [h]; done"),
            ])
        #expect(machine.phase == .finished)
        #expect(machine.outcomes == 1)
    }

    @Test func derivedOutcomeBeforeItsAnnouncementIsCountedOnce() {
        var machine = Machine(derivedStartingImmediately: true)
        machine.follow(from: 1)
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.startHook("s"), "run now"),
                (.sourceFinished("v", number: 1), "ended, drain"),
                (.drain, "deliver v#1 to [h]; done"),
                (.sourceBegan(1), "none"),
                // The source reloads; its outcome overtakes the announcement of its run.
                (.sourceFinished("w", number: 2), "ended, drain"),
                (.drain, "start 2: run [s]; deliver w#2 to [h]; done"),
                (.sourceBegan(2), "none"),
            ])
        #expect(machine.phase == .finished)
        #expect(machine.outcomes == 2)
        #expect(machine.result == "w")
    }

    @Test func derivedCoreFollowsAReloadOfItsSourceWhileItDrains() {
        var machine = Machine(derivedStartingImmediately: true)
        machine.follow(from: 1)
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.startHook("s"), "run now"),
                (.follower("f", handler: "t"), "first 1, announce"),
                (.sourceFinished("v", number: 1), "ended, drain"),
                (.drainStep, "deliver v#1 to [h, t]"),
                // A handler reloads the source, which tells this core.
                (.sourceBegan(2), "announce 2 to [f]"),
            ])
        #expect(machine.phase == .following)
        #expect(machine.startQueued)
        #expect(machine.nextOutcome == 2)
        Self.play(
            &machine,
            [
                (.drainStep, "start 2: run [s]"),
                (.drainStep, "done"),
                (.sourceFinished("w", number: 2), "ended, drain"),
                (.drain, "deliver w#2 to [h, t]; done"),
            ])
        #expect(machine.outcomes == 2)
    }

    @Test func derivedCoreRunsOnWhenItsSourceBeganTheNextRunBeforeTheOutcome() {
        var machine = Machine(derivedStartingImmediately: false)
        machine.follow(from: 1)
        Self.play(
            &machine,
            [
                (.handler("h"), "none"),
                (.startHook("s"), "none"),
                (.sourceBegan(1), "begin 1: tell [], run [s]"),
                // The source's handlers reload it before they hand this core outcome 1.
                (.sourceBegan(2), "announce 2 to []"),
                (.sourceFinished("v", number: 1), "ended, continues, drain"),
            ])
        #expect(machine.phase == .following)
        Self.play(
            &machine,
            [
                (.drain, "deliver v#1 to [h]; start 2: run [s]; done"),
                (.sourceFinished("w", number: 2), "ended, drain"),
                (.drain, "deliver w#2 to [h]; done"),
            ])
        #expect(machine.outcomes == 2)
    }

    @Test func cancellingADerivedCoreThatWaitsForItsSourceFollowsIt() {
        var machine = Machine(derivedStartingImmediately: false)
        machine.follow(from: 1)
        Self.play(
            &machine,
            [
                (.cancelHook("cancel source"), "none"),
                (.cancel, "run [cancel source]"),
                (.sourceFinished("cancelled", number: 1), "ended"),
            ])
        #expect(machine.phase == .finished)
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
        Self.play(&machine, [(.reload, "begin 2: tell [], run []")])
        #expect(Self.describe(machine.subscribe()) == "create")
    }

    @Test func aConnectorIsTakenOnce() {
        var machine = Machine(derivedStartingImmediately: true)
        #expect(machine.takeConnector() == nil)
        machine.setConnector("connect")
        #expect(machine.takeConnector() == "connect")
        #expect(machine.takeConnector() == nil)
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
