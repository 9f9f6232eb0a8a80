/// One event loop's thread as a task executor (``CurlTransport/taskExecutor`` hands out each
/// loop's in turn).
///
/// A job enqueued here becomes a ``CurlCommandQueue/Command/run(_:)`` command: the loop runs
/// it at the start of its next pass, between two calls into libcurl, like any other command.
/// A task that prefers this executor sends its requests on this loop (``LoopPlacement``), and
/// when it awaits a response it is resumed by the loop's own thread without waking another
/// one: the response's continuation enqueues the task's next job here, and the loop runs it
/// before it polls again.
///
/// Once the loop has stopped, jobs run on the global concurrent executor instead, so a task
/// that prefers a shut-down engine (one awaiting ``CurlTransport/shutdown()``, say) still
/// runs to its end.
final class CurlLoopExecutor: TaskExecutor {
    private let commands: CurlCommandQueue

    /// An executor whose jobs go through `commands`.
    init(commands: CurlCommandQueue) {
        self.commands = commands
    }

    /// Queues a job for the loop thread, or for the global executor when the loop has stopped.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !commands.post(.run(job)) { Self.runElsewhere(job) }
    }

    /// Hands a job the loop will not run to the global concurrent executor.
    static func runElsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
