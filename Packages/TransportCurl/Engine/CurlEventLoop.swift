import CCurl
import Foundation
import Transport

/// The thread that owns one libcurl multi handle and every transfer on it.
///
/// Other threads never touch curl: they append a ``Command`` to a lock-protected queue and
/// call `curl_multi_wakeup` (the one multi function libcurl allows from another thread).
/// The loop then, over and over:
///
/// 1. swaps the command queue out under the lock and applies each command (start, cancel,
///    resume reading or sending, shut down);
/// 2. calls `curl_multi_perform`, which runs the C callbacks of ready transfers;
/// 3. reads finished transfers with `curl_multi_info_read` and completes them;
/// 4. resumes the Swift continuations of responses whose heads arrived during this pass
///    (late, so a small body is usually complete by then and costs no second hop);
/// 5. blocks in `curl_multi_poll` until a socket is ready, a timer is due, or a wakeup.
///
/// No work runs on Swift's cooperative pool and no Dispatch source exists per socket.
final class CurlEventLoop: @unchecked Sendable {
    // Safety of @unchecked Sendable: `multi` is written once in `init` and afterwards used by
    // other threads only for `curl_multi_wakeup`, which libcurl documents as callable from
    // any thread. `pendingCommands` is a `PThreadMutex`. Every other stored property is touched only
    // on the loop thread (inside `run()` and the functions it calls), which is the single
    // thread that ever runs them.

    /// A request from another thread to the loop.
    enum Command {
        /// Add a transfer to the multi handle.
        case start(CurlTransfer)
        /// Stop a transfer and fail it with the error.
        case cancel(CurlTransfer, TransportError)
        /// The consumer drained the response buffer: read from the network again.
        case resumeReceiving(CurlTransfer)
        /// The request-body producer has bytes again: send again.
        case resumeSending(CurlTransfer)
    }

    private struct Queue {
        var commands: [Command] = []
        /// The loop is in (or about to enter) `curl_multi_poll` and needs a wakeup.
        var isPolling = false
        /// A wakeup was sent since the loop last entered `curl_multi_poll`.
        var isWakeupPending = false
        var isShutDown = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var hasExited = false
    }

    let multi: OpaquePointer
    let configuration: CurlTransport.Configuration
    /// Commands from other threads, and the loop's polling and shutdown flags.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let pendingCommands = PThreadMutex(Queue())

    // Loop-thread state.
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var idleHandles: [CurlEasyHandle] = []
    private var toDeliver: [CurlTransfer] = []
    private var spareCommands: [Command] = []
    private var lastStallCheck = ContinuousClock.now

    /// Creates the multi handle and starts the loop thread.
    ///
    /// - Throws: ``TransportError`` when libcurl cannot be initialised.
    init(configuration: CurlTransport.Configuration) throws {
        guard CurlGlobal.initialized, let multi = curl_multi_init() else {
            throw TransportError(
                .other,
                message: "libcurl could not be initialised (curl_global_init or curl_multi_init failed); "
                    + "check that libcurl \(CurlGlobal.version) is installed correctly.",
                mayHaveReachedServer: false
            )
        }
        self.multi = multi
        self.configuration = configuration
        _ = parley_multi_setopt_long(multi, CURLMOPT_PIPELINING, parley_pipe_multiplex)
        _ = parley_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maximumConnectionsPerHost))
        _ = parley_multi_setopt_long(
            multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, configuration.maximumTotalConnections))
        // Keep enough idle connections cached for every host's limit to be reused.
        let cacheSize = max(configuration.maximumTotalConnections, configuration.maximumConnectionsPerHost * 4, 32)
        _ = parley_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cacheSize)

        let thread = Thread { [self] in self.run() }
        thread.name = "parley-curl-loop"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: - Any thread

    /// Queues a command for the loop and wakes it.
    ///
    /// - Returns: `false` when the loop has shut down; the command was not queued.
    @discardableResult
    func enqueue(_ command: Command) -> Bool {
        pendingCommands.withLock { queue in
            guard !queue.isShutDown else { return false }
            queue.commands.append(command)
            // Wake only a loop that is polling, and only once per poll: a busy loop takes the
            // command on its next pass without a syscall. Waking under the lock keeps `multi`
            // alive: the loop frees it only after marking the queue shut down under this lock.
            if queue.isPolling && !queue.isWakeupPending {
                queue.isWakeupPending = true
                curl_multi_wakeup(multi)
            }
            return true
        }
    }

    /// Stops the loop: every running transfer fails with a ``TransportError/Category-swift.struct/shutDown``
    /// error, the handles are freed, and the thread exits. Returns when it has.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyExited = pendingCommands.withLock { queue in
                if queue.hasExited { return true }
                queue.isShutDown = true
                queue.shutdownWaiters.append(continuation)
                curl_multi_wakeup(multi)
                return false
            }
            if alreadyExited { continuation.resume() }
        }
    }

    /// Asks the loop to stop without waiting (for `deinit`).
    func requestShutdown() {
        pendingCommands.withLock { queue in
            guard !queue.hasExited else { return }
            queue.isShutDown = true
            curl_multi_wakeup(multi)
        }
    }

    // MARK: - Loop thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            var commands = spareCommands
            let shuttingDown = pendingCommands.withLock { queue in
                // The poll, if there was one, is over: one lock per pass serves both.
                queue.isPolling = false
                swap(&commands, &queue.commands)
                return queue.isShutDown
            }
            for command in commands { apply(command) }
            commands.removeAll(keepingCapacity: true)
            spareCommands = commands
            if shuttingDown { break }

            curl_multi_perform(multi, &stillRunning)
            drainFinished()
            deliverPending()
            checkStalls()

            // Wake at least every 250 ms while transfers run, for the stall check.
            let mayPoll = pendingCommands.withLock { queue in
                // Announce the poll, unless commands arrived during this pass: then loop at once.
                guard queue.commands.isEmpty && !queue.isShutDown else { return false }
                queue.isPolling = true
                queue.isWakeupPending = false
                return true
            }
            if mayPoll {
                curl_multi_poll(multi, nil, 0, active.isEmpty ? 1000 : 250, nil)
            }
        }
        tearDown()
    }

    private func apply(_ command: Command) {
        switch command {
        case .start(let transfer):
            start(transfer)
        case .cancel(let transfer, let error):
            guard transfer.isAttached else { return }
            finish(transfer, with: .failure(error))
        case .resumeReceiving(let transfer):
            guard transfer.isAttached else { return }
            transfer.resume(receiving: true)
        case .resumeSending(let transfer):
            guard transfer.isAttached else { return }
            transfer.resume(receiving: false)
        }
    }

    private func start(_ transfer: CurlTransfer) {
        let handle = idleHandles.popLast() ?? CurlEasyHandle()
        guard let handle else {
            transfer.complete(
                .failure(
                    TransportError(
                        .other, message: "libcurl could not create a transfer handle (out of memory?).",
                        mayHaveReachedServer: false)))
            return
        }
        do {
            try transfer.attach(to: handle)
        } catch {
            recycle(handle)
            transfer.complete(.failure(TransportError(wrapping: error, url: transfer.initialURL)))
            return
        }
        active[ObjectIdentifier(transfer)] = transfer
        let code = curl_multi_add_handle(multi, handle.pointer)
        if code != CURLM_OK {
            active[ObjectIdentifier(transfer)] = nil
            if let handle = transfer.detach() { recycle(handle) }
            transfer.complete(
                .failure(
                    TransportError(
                        .other,
                        message:
                            "libcurl refused the transfer (curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))).",
                        url: transfer.currentURL, mayHaveReachedServer: false)))
        }
    }

    /// Restarts a transfer on the same handle for its next redirect hop.
    func restart(_ transfer: CurlTransfer, handle: CurlEasyHandle) {
        curl_multi_remove_handle(multi, handle.pointer)
        do {
            try transfer.configure(handle)
        } catch {
            finish(transfer, with: .failure(TransportError(wrapping: error, url: transfer.currentURL)))
            return
        }
        if curl_multi_add_handle(multi, handle.pointer) != CURLM_OK {
            finish(
                transfer,
                with: .failure(
                    TransportError(
                        .other, message: "libcurl refused the redirected transfer.", url: transfer.currentURL)))
        }
    }

    private func drainFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            _ = parley_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            switch transfer.outcome(of: result) {
            case .redirect(let handle):
                restart(transfer, handle: handle)
            case .finished(let outcome):
                finish(transfer, with: outcome)
            }
        }
    }

    /// Removes a transfer from the multi handle, recycles its easy handle and completes it.
    private func finish(_ transfer: CurlTransfer, with outcome: Result<Void, TransportError>) {
        active[ObjectIdentifier(transfer)] = nil
        if let handle = transfer.detach() {
            curl_multi_remove_handle(multi, handle.pointer)
            recycle(handle)
        }
        transfer.complete(outcome)
    }

    private func recycle(_ handle: CurlEasyHandle) {
        if idleHandles.count < 64 {
            idleHandles.append(handle)
        } else {
            handle.cleanup()
        }
    }

    /// Fails transfers that moved no byte for their stall timeout, at most four times a second.
    private func checkStalls() {
        guard !active.isEmpty else { return }
        let now = ContinuousClock.now
        guard now - lastStallCheck >= .milliseconds(250) else { return }
        lastStallCheck = now
        for transfer in active.values {
            if let error = transfer.checkStall(now: now) { finish(transfer, with: .failure(error)) }
        }
    }

    /// Called by a streaming transfer (on this thread) when its head is complete or body bytes
    /// wait for a consumer: the loop hands them over once, at the end of the pass.
    func scheduleDelivery(_ transfer: CurlTransfer) {
        guard !transfer.isScheduledForDelivery else { return }
        transfer.isScheduledForDelivery = true
        toDeliver.append(transfer)
    }

    private func deliverPending() {
        // Delivering can schedule again: unpausing a transfer lets libcurl call the write
        // callback at once, and a consumer may already be waiting for those bytes. So take
        // the list before walking it, and walk until nothing new was scheduled.
        while !toDeliver.isEmpty {
            let batch = toDeliver
            toDeliver.removeAll(keepingCapacity: true)
            for transfer in batch {
                transfer.isScheduledForDelivery = false
                transfer.deliver()
            }
        }
    }

    private func tearDown() {
        let shutDown = TransportError(
            .shutDown,
            message: "The transport was shut down while the transfer ran; create a new transport to send more requests."
        )
        for transfer in active.values { finish(transfer, with: .failure(shutDown)) }
        let (leftover, waiters) = pendingCommands.withLock { queue in
            queue.hasExited = true
            defer {
                queue.commands = []
                queue.shutdownWaiters = []
            }
            return (queue.commands, queue.shutdownWaiters)
        }
        for command in leftover {
            if case .start(let transfer) = command { transfer.complete(.failure(shutDown)) }
        }
        for handle in idleHandles { handle.cleanup() }
        idleHandles = []
        curl_multi_cleanup(multi)
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the loop has been asked to stop.
    var isShutDown: Bool { pendingCommands.withLock { $0.isShutDown } }
}
