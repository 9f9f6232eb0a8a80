/// The cancellation of a request handle's run while its operation runs in the task that awaits
/// the handle: how ``RequestHandle/cancel()`` ends that operation without cancelling the task.
///
/// A handle's operation runs in the task that awaits it (see ``RequestHandle/value``) when it
/// was made with `runsInAwaitingTask: true`. Cancelling the handle must end that operation
/// and nothing else: the code after the `await` goes on in an uncancelled task. So the
/// handle does not cancel the task; it cancels its run's cancellation, which is current (a
/// task-local value) while the operation runs, and everything the operation waits on
/// registers with it as well as with the task:
///
/// ```swift
/// // In a transport or a middleware that waits on something of its own:
/// try await RequestCancellation.withCancellationHandler {
///     try await waitForTheAnswer()
/// } onCancel: {
///     stopWaiting()   // runs on a task's cancellation and on the handle's cancel alike
/// }
/// ```
///
/// Parley's engine, retry waits, downloads, shared transfers and concurrency limits all do.
/// A wait that honours only task cancellation (`Task.sleep`, a library of another party) is
/// run through ``runCancellable(_:)``, in a task of its own that a cancel of the handle
/// cancels. Code that does neither is not interrupted by the handle's cancel: the run ends at
/// the next wait that honours it (the next request it sends, say), or when the awaiting task
/// is cancelled. Outside a handle's run in an awaiting task, every call here is the task's own
/// cancellation and nothing more.
public struct RequestCancellation: Sendable {
    /// The cancellation current for the code running now: that of the handle's run whose
    /// operation runs here (in a task awaiting the handle, or in the run's own task, where it
    /// carries the suspension and the task carries the cancel); `nil` outside any.
    @TaskLocal package static var current: RequestCancellation?

    /// The handle's core.
    let core: RequestCore
    /// The number of the run it cancels.
    let run: Int
    /// Whether it cancels: `false` for one that only carries the run's suspension into a task
    /// that outlives the wait it was made in (see ``keepingSuspension(isolation:_:)``).
    var cancels = true

    /// Whether the calling task was cancelled, or the request handle whose operation it runs.
    public static var isCancelled: Bool {
        if Task.isCancelled { return true }
        guard let current, current.cancels else { return false }
        return current.core.isCancelled(run: current.run)
    }

    /// Throws `CancellationError` when ``isCancelled``.
    ///
    /// - Throws: `CancellationError`.
    public static func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Runs `operation`, and `handler` when the calling task is cancelled or the request handle
    /// whose operation runs here is cancelled (at once when either already is): what
    /// `withTaskCancellationHandler` does, for both.
    ///
    /// `handler` runs at most once per cancellation, on the cancelling thread, while the
    /// handle's lock is held: keep it to telling the work to stop (cancel a transfer, resume a
    /// wait with an error), and never call back into the handle from it.
    ///
    /// - Parameters:
    ///   - operation: The work that waits.
    ///   - handler: Tells the work to stop.
    ///   - isolation: The caller's isolation, which `operation` runs in.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withCancellationHandler<T>(
        operation: () async throws -> T,
        onCancel handler: @Sendable () -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> T {
        guard let current, current.cancels else {
            return try await withTaskCancellationHandler(operation: operation, onCancel: handler, isolation: isolation)
        }
        return try await withTaskCancellationHandler(
            operation: {
                // The handle keeps `handler` only until `register` is undone below, under its
                // lock, which it also holds while running it: the closure does not outlive
                // this call.
                try await withoutActuallyEscaping(handler) { handler in
                    let registration = current.core.register(handler, run: current.run)
                    defer { current.core.unregister(registration) }
                    return try await operation()
                }
            }, onCancel: handler, isolation: isolation)
    }

    /// Runs `body` in a task of its own that a cancel of the request handle whose operation
    /// runs here cancels, as the calling task's cancellation does: for a wait that honours
    /// only task cancellation (`Task.sleep`, another party's library). Outside such a run,
    /// runs `body` in the calling task.
    ///
    /// - Parameter body: The work; it gets no cancellation of its own but its task's.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func runCancellable<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard current != nil else { return try await body() }
        let task = Task { try await body() }
        return try await withCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` with no request handle's cancellation current: for a task that must outlive
    /// the run it was made in (a transfer several requests share, a refresh of a token), which
    /// would otherwise inherit the run's cancellation.
    package static func withoutCurrent<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard current != nil else { return try await body() }
        return try await $current.withValue(nil, operation: body, isolation: isolation)
    }

    /// Runs `body` with the current request handle's suspension but not its cancellation: for
    /// a task that does a run's work but is stopped by other means (a download's runner, which
    /// the download stops and resumes itself), whose transfers should still hold still while
    /// the handle is suspended.
    package static func keepingSuspension<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard var suspension = current else { return try await body() }
        suspension.cancels = false
        return try await $current.withValue(suspension, operation: body, isolation: isolation)
    }
}
