import Transport

/// The one channel into a ``CurlEventLoop``: what transports and transfers ask of the loop.
///
/// Calls go one way. The loop calls its transfers (attach, configure, deliver, complete); a
/// transfer never calls the loop. What a transfer, its caller or its stream buffers need
/// from the loop (a cancel, more bytes to send, a consumer that drained the buffer, a head
/// or bytes to hand over before the loop sleeps) they post here as a ``Command``, from any
/// thread, the loop's own included; the loop takes the whole queue at the start of each pass
/// and applies it in order.
///
/// Posting from another thread wakes the loop only when it waits in `epoll_wait`, and only
/// once per wait (a write to its eventfd, ``CurlLoopWakeup``); a command posted during a pass
/// (a delivery, scheduled by a callback inside `curl_multi_socket_action`) keeps the loop from
/// sleeping until it has been applied.
final class CurlCommandQueue: @unchecked Sendable {
    // Safety of @unchecked Sendable: `wakeup` is Sendable, written once in `init`, and signalled
    // only under `state`'s lock before the loop has closed the queue (`hasExited`); the loop
    // closes the descriptor only after closing the queue under the same lock, so no signal can
    // reach a closed or reused descriptor. Every other stored property is in the `PThreadMutex`.

    /// A request to the loop.
    enum Command {
        /// Add a transfer to the multi handle.
        case start(CurlTransfer)
        /// Stop a transfer and fail it with the error.
        case cancel(CurlTransfer, TransportError)
        /// The consumer drained the response buffer: read from the network again.
        case resumeReceiving(CurlTransfer)
        /// The request-body producer has bytes again: send again.
        case resumeSending(CurlTransfer)
        /// The transfer's handle was suspended or resumed: pause or unpause it as it now says.
        case applySuspension(CurlTransfer)
        /// A streamed transfer has its head or body bytes ready: hand them to the consumer.
        case deliver(CurlTransfer)
        /// A job of a task that prefers the loop as its executor (``CurlLoopExecutor``).
        case run(UnownedJob)
    }

    private struct State {
        var commands: [Command] = []
        /// The loop is in (or about to enter) `epoll_wait` and needs a wakeup.
        var isPolling = false
        /// A wakeup was sent since the loop last entered `epoll_wait`.
        var isWakeupPending = false
        var isShutDown = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var hasExited = false
        /// Graceful shutdown: `.start` is refused, and the tasks in ``drainWaiters`` wait for
        /// the loop's last transfer to end.
        var isDraining = false
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// What the transfers still running when the loop stops fail with, if not the default
        /// `.shutDown` error (a graceful shutdown's grace period ran out).
        var shutdownError: TransportError?
    }

    /// What ``take(into:)`` reports to the loop for its pass.
    struct Pass {
        /// The loop has been asked to stop.
        var isShutDown: Bool
        /// Tasks wait for the loop's transfers to end (``whenDrained(_:)``).
        var awaitsDrain: Bool
    }

    private let wakeup: CurlLoopWakeup
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())

    /// A queue that ends the loop's wait through `wakeup`.
    init(waking wakeup: CurlLoopWakeup) {
        self.wakeup = wakeup
    }

    // MARK: - Any thread

    /// Queues a command for the loop, waking it if it polls.
    ///
    /// - Returns: `false` when the loop has shut down, or is shutting down gracefully and the
    ///   command starts a transfer; the command was not queued.
    @discardableResult
    func post(_ command: Command) -> Bool {
        state.withLock { state in
            guard !state.isShutDown else { return false }
            if state.isDraining, case .start = command { return false }
            state.commands.append(command)
            // Wake only a loop that is polling, and only once per poll: a busy loop takes the
            // command on its next pass without a syscall.
            if state.isPolling && !state.isWakeupPending {
                state.isWakeupPending = true
                wakeup.signal()
            }
            return true
        }
    }

    /// Asks the loop to stop and calls `waiter` once it has exited (at once if it has).
    func shutDown(then waiter: CheckedContinuation<Void, Never>) {
        let alreadyExited = state.withLock { state in
            if state.hasExited { return true }
            state.isShutDown = true
            state.shutdownWaiters.append(waiter)
            wakeup.signal()
            return false
        }
        if alreadyExited { waiter.resume() }
    }

    /// Asks the loop to stop without waiting (for `deinit`, and for the end of a graceful
    /// shutdown's grace period).
    ///
    /// - Parameter error: What the transfers still running fail with; the default `.shutDown`
    ///   error when `nil`.
    func requestShutdown(failingRunningWith error: TransportError? = nil) {
        state.withLock { state in
            guard !state.hasExited else { return }
            state.isShutDown = true
            if let error { state.shutdownError = error }
            wakeup.signal()
        }
    }

    /// Refuses transfers from now on: ``post(_:)`` returns `false` for `.start`.
    func stopAccepting() {
        state.withLock { $0.isDraining = true }
    }

    /// Calls `waiter` once the loop has no transfer left (at once if it has exited).
    func whenDrained(_ waiter: CheckedContinuation<Void, Never>) {
        let alreadyExited = state.withLock { state in
            if state.hasExited { return true }
            state.drainWaiters.append(waiter)
            wakeup.signal()
            return false
        }
        if alreadyExited { waiter.resume() }
    }

    // MARK: - Loop thread

    /// Swaps the queued commands into `commands` (an empty array whose storage is reused) and
    /// ends the wait, if there was one.
    ///
    /// - Returns: Whether the loop has been asked to stop, and whether tasks wait for it to
    ///   have no transfer left.
    func take(into commands: inout [Command]) -> Pass {
        state.withLock { state in
            // The poll, if there was one, is over: one lock per pass serves both.
            state.isPolling = false
            swap(&commands, &state.commands)
            return Pass(isShutDown: state.isShutDown, awaitsDrain: !state.drainWaiters.isEmpty)
        }
    }

    /// Resumes the tasks waiting for the loop to have no transfer left (the loop has none).
    func drained() {
        let waiters = state.withLock { state in
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Announces that the loop is about to wait, unless commands arrived during the pass (or
    /// the loop must stop): then it should run another pass without sleeping.
    ///
    /// - Returns: Whether the loop may sleep.
    func announcePoll() -> Bool {
        state.withLock { state in
            guard state.commands.isEmpty && !state.isShutDown else { return false }
            state.isPolling = true
            state.isWakeupPending = false
            return true
        }
    }

    /// What the transfers still running when the loop stops fail with, when not the default
    /// `.shutDown` error.
    var shutdownError: TransportError? {
        state.withLock { $0.shutdownError }
    }

    /// Marks the loop as exited and hands back what was left: the commands nobody will
    /// apply and the tasks waiting for the shutdown or for the drain.
    func close() -> (leftover: [Command], waiters: [CheckedContinuation<Void, Never>]) {
        state.withLock { state in
            state.hasExited = true
            defer {
                state.commands = []
                state.shutdownWaiters = []
                state.drainWaiters = []
            }
            return (state.commands, state.shutdownWaiters + state.drainWaiters)
        }
    }
}
