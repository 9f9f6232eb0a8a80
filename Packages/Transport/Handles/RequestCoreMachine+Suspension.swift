// The suspension of a request handle, as events of its machine: `suspend()` and `resume()`
// decide, and hand back the handlers registered with the run (the waits that hold still: a
// transfer pauses) for the caller to tell, under its lock, as a cancel of a run in an awaiting
// task does.
extension RequestCoreMachine {
    /// What the caller does after a suspend or a resume.
    package enum SuspensionAction: Sendable {
        /// Nothing: the handle was suspended (or moving) already, or it has finished.
        case none
        /// Tell these handlers, registered with the run in progress, whether to hold still
        /// (`true`) or to move again (`false`).
        case tell(Bool, handlers: Callbacks<Types.Hook>)
    }

    /// Suspends the handle: what its run waits on holds still until ``resume()``, and a run
    /// that has not begun (or a wait registered later in the run: the next attempt, the next
    /// hop) starts held. Does nothing once the handle has finished, or when suspended already.
    package mutating func suspend() -> SuspensionAction {
        guard !isFinished, !isSuspended else { return .none }
        isSuspended = true
        suspensionChanged = true
        return .tell(true, handlers: scopeHandlers)
    }

    /// Resumes a suspended handle; does nothing when it is not suspended.
    package mutating func resume() -> SuspensionAction {
        guard isSuspended else { return .none }
        isSuspended = false
        return .tell(false, handlers: scopeHandlers)
    }

    /// What a handler registered now with the run must be told at once: `true` to hold still
    /// (the handle is suspended), `false` to move (it was suspended earlier in the run, and
    /// resumed), `nil` for nothing (never suspended in this run: a request that never
    /// suspends pays for nothing more).
    package var suspensionForNewHandler: Bool? {
        suspensionChanged ? isSuspended : nil
    }
}
