extension RequestCancellation {
    /// Runs `operation`, and `handler` when the calling task or the request handle whose
    /// operation runs here is cancelled, as ``withCancellationHandler(operation:onCancel:isolation:)``
    /// does; and `suspender` each time that handle is suspended (`true`) or resumed (`false`)
    /// while `operation` runs: how a transport's transfer holds still while its handle is
    /// suspended (``RequestHandle/suspend()``).
    ///
    /// `suspender` is told at once, before `operation` begins, when the handle is suspended
    /// already (or was suspended and resumed earlier in its run: a wait that begins after a
    /// resume is told to move), so that a transfer made for the next attempt of a suspended
    /// request starts held. A handle never suspended never calls it. It runs on the thread that
    /// suspends or resumes the handle, while the handle's lock is held: keep it to telling the
    /// work to pause or go on (post a command, set a flag), and never call back into the handle
    /// from it.
    ///
    /// Unlike a cancel, a suspension reaches the operation of a handle's run whether it runs in
    /// a task that awaits the handle or in a task of its own. Outside a handle's run, this is
    /// `withTaskCancellationHandler` and `suspender` never runs.
    ///
    /// ```swift
    /// // In a transport:
    /// try await RequestCancellation.withCancellationHandler {
    ///     try await transfer.run()
    /// } onCancel: {
    ///     transfer.cancel()
    /// } onSuspensionChange: { suspended in
    ///     transfer.setPaused(suspended)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - operation: The work that waits.
    ///   - handler: Tells the work to stop.
    ///   - suspender: Tells the work to hold still (`true`) or to go on (`false`).
    ///   - isolation: The caller's isolation, which `operation` runs in.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withCancellationHandler<T>(
        operation: () async throws -> T,
        onCancel handler: @Sendable () -> Void,
        onSuspensionChange suspender: @Sendable (Bool) -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> T {
        guard let current else {
            return try await withTaskCancellationHandler(operation: operation, onCancel: handler, isolation: isolation)
        }
        return try await withTaskCancellationHandler(
            operation: {
                // As in the variant without a suspender: the handle keeps both closures only
                // until the registration is undone below, under its lock, which it also holds
                // while running either.
                try await withoutActuallyEscaping(handler) {
                    (handler: @escaping @Sendable () -> Void) async throws -> T in
                    try await withoutActuallyEscaping(suspender) {
                        (suspender: @escaping @Sendable (Bool) -> Void) async throws -> T in
                        let registration = current.register(handler, suspender: suspender)
                        defer { current.core.unregister(registration) }
                        return try await operation()
                    }
                }
            }, onCancel: handler, isolation: isolation)
    }

    /// Registers `suspender`, and `handler` unless this cancellation only carries a suspension,
    /// with the run; the number to undo it with.
    private func register(
        _ handler: @escaping @Sendable () -> Void, suspender: @escaping @Sendable (Bool) -> Void
    ) -> Int? {
        guard cancels else { return core.register(Self.ignoreCancel, suspender: suspender, run: run) }
        return core.register(handler, suspender: suspender, run: run)
    }

    /// The cancel handler of a cancellation that only carries a suspension.
    private static func ignoreCancel() {
    }
}
