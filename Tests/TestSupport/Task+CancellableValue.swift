extension Task where Failure == any Error {
    /// The task's value, cancelling the task when the task awaiting it is cancelled.
    ///
    /// `value` alone ignores the waiter's cancellation: a test whose time limit is exceeded
    /// while it awaits an unstructured task that never ends (a request a broken engine never
    /// answers) is cancelled, yet keeps waiting, and the run hangs instead of failing. With
    /// this, the awaited task is cancelled too, and the test ends with its failure.
    package var cancellableValue: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}
