import Testing
import Transport

/// The suspension of a request handle as events of its machine, scripted as
/// ``RequestCoreMachineTests`` scripts the others: `suspend()` and `resume()` say which waits
/// to tell, a wait registered later learns whether to start held, and the end of a run lifts
/// the suspension.
@Suite struct RequestCoreMachineSuspensionTests {
    typealias Machine = RequestCoreMachineTests.Machine

    /// One event: one of ``RequestCoreMachineTests/Event``, or one of the suspension's.
    enum Step: CustomStringConvertible {
        /// An event of the other scripts.
        case core(RequestCoreMachineTests.Event)
        /// ``RequestCoreMachine/suspend()``.
        case suspend
        /// ``RequestCoreMachine/resume()``.
        case resume
        /// A wait that can hold still registers `handler` with run `run`, and is told what
        /// ``RequestCoreMachine/suspensionForNewHandler`` says.
        case suspendable(String, run: Int)

        var description: String {
            switch self {
            case .core(let event): event.description
            case .suspend: "suspend"
            case .resume: "resume"
            case .suspendable(let handler, let run): "register suspendable \(handler) with run \(run)"
            }
        }
    }

    static func play(
        _ machine: inout Machine, _ script: [(Step, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, (step, expected)) in script.enumerated() {
            let action: String
            switch step {
            case .core(let event): action = RequestCoreMachineTests.apply(event, to: &machine)
            case .suspend: action = describe(machine.suspend())
            case .resume: action = describe(machine.resume())
            case .suspendable(let handler, let run):
                let registration: String
                switch machine.addScopeHandler(handler, run: run, suspendable: true) {
                case .kept(let id): registration = "kept as \(id)"
                case .runNow: registration = "run now"
                case .ignored: registration = "ignored"
                }
                switch machine.suspensionForNewHandler {
                case nil: action = registration
                case true?: action = registration + ", hold"
                case false?: action = registration + ", move"
                }
            }
            #expect(action == expected, "step \(index + 1), \(step)", sourceLocation: sourceLocation)
        }
    }

    static func describe(_ action: Machine.SuspensionAction) -> String {
        switch action {
        case .none: "none"
        case .tell(let suspended, let handlers):
            "tell \(RequestCoreMachineTests.list(handlers)) to \(suspended ? "hold" : "move")"
        }
    }

    @Test func suspendAndResumeTellTheWaitsOfARunInAnAwaitingTask() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.core(.start), "begin 1: run []"),
                (.core(.begun(run: 1)), "pending"),
                (.core(.claimForAwait), "run 1 here"),
                // Never suspended: a wait learns nothing.
                (.suspendable("transfer", run: 1), "kept as 1"),
                (.suspend, "tell [transfer] to hold"),
                (.suspend, "none"),
                (.core(.isCancelled(run: 1)), "no"),
                (.resume, "tell [transfer] to move"),
                (.resume, "none"),
                (.core(.removeScopeHandler(1)), "removed transfer"),
                (.suspend, "tell [] to hold"),
                // The next attempt's transfer starts held.
                (.suspendable("retry", run: 1), "kept as 2, hold"),
                (.resume, "tell [retry] to move"),
                // A read after the resume learns that it moves.
                (.suspendable("read", run: 1), "kept as 3, move"),
            ])
        #expect(!machine.isSuspended)
    }

    @Test func aRunInItsOwnTaskKeepsOnlyTheWaitsThatCanHoldStill() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.core(.start), "begin 1: run []"),
                (.core(.handler("h")), "none"),
                (.core(.begun(run: 1)), "launch"),
                (.core(.launched("task", run: 1)), "none"),
                (.core(.claim(run: 1)), "claimed"),
                // A cancel handler alone is the task's business.
                (.core(.scopeHandler("cancel only", run: 1)), "ignored"),
                (.suspendable("transfer", run: 1), "kept as 1"),
                (.suspend, "tell [transfer] to hold"),
                // A cancel cancels the task; the wait is undone by its own scope.
                (.core(.cancel), "run [], cancel task"),
                (.suspendable("late", run: 1), "ignored, hold"),
            ])
    }

    @Test func aHandleSuspendedBeforeItStartsStartsHeld() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.suspend, "tell [] to hold"),
                (.core(.start), "begin 1: run []"),
                (.core(.begun(run: 1)), "pending"),
                (.core(.claimForAwait), "run 1 here"),
                (.suspendable("transfer", run: 1), "kept as 1, hold"),
            ])
        #expect(machine.isSuspended)
    }

    @Test func theEndOfARunLiftsTheSuspensionAndAFinishedHandleIgnoresIt() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.core(.start), "begin 1: run []"),
                (.core(.begun(run: 1)), "pending"),
                (.core(.claimForAwait), "run 1 here"),
                (.suspendable("transfer", run: 1), "kept as 1"),
                (.suspend, "tell [transfer] to hold"),
                // A cancel of a suspended handle cancels it.
                (.core(.cancel), "run [], cancel the scope"),
                (.core(.takeScopeHandlers), "[transfer]"),
                (.core(.finish("cancelled")), "ended"),
                (.suspend, "none"),
                (.resume, "none"),
                // The next run moves, and its waits learn nothing.
                (.core(.reload), "begin 2: run []"),
                (.core(.begun(run: 2)), "pending"),
                (.core(.claimForAwait), "run 2 here"),
                (.suspendable("transfer", run: 2), "kept as 2"),
            ])
        #expect(!machine.isSuspended)
    }

    @Test func aHandleMadeFinishedCannotBeSuspended() {
        var machine = Machine(finished: "done")
        Self.play(&machine, [(.suspend, "none"), (.resume, "none")])
        #expect(!machine.isSuspended)
    }

    @Test func aCancelByRunReachesOnlyThatRun() {
        var machine = Machine()
        Self.play(
            &machine,
            [
                (.core(.start), "begin 1: run []"),
                (.core(.begun(run: 1)), "pending"),
                (.core(.claimForAwait), "run 1 here"),
                (.core(.finish("one")), "ended"),
                (.core(.reload), "begin 2: run []"),
                (.core(.begun(run: 2)), "pending"),
                (.core(.claimForAwait), "run 2 here"),
            ])
        guard case .none = machine.cancel(run: 1) else {
            Issue.record("a cancel of run 1 reached run 2")
            return
        }
        guard case .cancelScope = machine.cancel(run: 2) else {
            Issue.record("a cancel of run 2 did not cancel it")
            return
        }
    }
}
