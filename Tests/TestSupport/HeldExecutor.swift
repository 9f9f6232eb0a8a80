import Dispatch
import Transport

/// A task executor that runs nothing until ``open()``, then runs its jobs one at a time: a
/// test holds the task of a request handle's run with it, so that a task that awaits the
/// handle claims the run first.
package final class HeldExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "parley.tests.held-executor")
    /// Jobs enqueued and not run yet, and whether the executor was opened.
    private let state = PThreadMutex((waiting: 0, enqueued: 0, opened: false))

    /// A closed executor.
    package init() {
        queue.suspend()
    }

    /// How many jobs wait.
    package var waiting: Int { state.withLock { $0.waiting } }

    /// How many jobs were enqueued in all.
    package var enqueued: Int { state.withLock { $0.enqueued } }

    /// Runs the jobs that wait and every later one; once, whatever the number of calls (a
    /// suspended queue must be resumed before it goes).
    package func open() {
        let first = state.withLock { state in
            defer { state.opened = true }
            return !state.opened
        }
        if first { queue.resume() }
    }

    /// Queues `job`; it runs once the executor is open.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { state in
            state.waiting += 1
            state.enqueued += 1
        }
        queue.async { [self] in
            state.withLock { $0.waiting -= 1 }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
