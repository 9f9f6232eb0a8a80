public import Dispatch

/// Where a handle's `success`, `failure` and `completion` handlers run (the seeds'
/// `observeOn(MainScheduler)`).
///
/// Without one, a handler runs on the thread that finished the request. With one, each
/// handler is handed to it, in the order the handlers were added; with a serial executor
/// (the main actor, a serial queue) they also run one at a time, in that order.
///
/// ```swift
/// client.handlerExecutor = .mainActor                      // every handle of the client
/// screen.request(form, options: CallOptions(executor: .queue(uiQueue)))   // one call
/// ```
///
/// Awaiting a handle is not affected: `await handle.value` resumes on the awaiting task's
/// own executor.
public struct HandlerExecutor: Sendable {
    private let enqueue: @Sendable (_ job: @escaping @Sendable () -> Void) -> Void

    /// An executor that runs each job by handing it to `enqueue`.
    ///
    /// - Parameter enqueue: Runs the job it is given, later or at once, exactly once.
    public init(_ enqueue: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void) {
        self.enqueue = enqueue
    }

    /// The main actor: handlers run on the main dispatch queue, which is the main actor's
    /// executor, one at a time, in order. (A program that calls `dispatchMain()`, as an async
    /// `main` on Linux does, may have that queue served by a thread other than the first.)
    public static let mainActor = HandlerExecutor { job in DispatchQueue.main.async(execute: job) }

    /// A dispatch queue; a serial queue runs the handlers one at a time, in order.
    ///
    /// - Parameter queue: The queue.
    /// - Returns: The executor.
    public static func queue(_ queue: DispatchQueue) -> HandlerExecutor {
        HandlerExecutor { job in queue.async(execute: job) }
    }

    /// Runs `job` on this executor.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        enqueue(job)
    }
}
