import CCurl
import Foundation
import Transport

/// The thread that owns one libcurl multi handle and every transfer on it.
///
/// Other threads never touch curl: they post a ``CurlCommandQueue/Command`` to the loop's
/// ``commands`` queue, which wakes the loop if it polls. Calls go one way: the loop calls its
/// transfers, and a transfer asks anything of the loop only by posting to that same queue
/// (from the loop's own thread too, to have a streamed head or body handed over before the
/// loop next sleeps). The loop then, over and over:
///
/// 1. takes the queued commands and applies each (start, cancel, resume reading or sending,
///    deliver a streamed head or body bytes, shut down);
/// 2. calls `curl_multi_perform`, which runs the C callbacks of ready transfers;
/// 3. reads finished transfers with `curl_multi_info_read` and completes them;
/// 4. fails transfers that have stalled;
/// 5. blocks in `curl_multi_poll` until a socket is ready, a timer is due, or a wakeup, unless
///    commands were posted during the pass (a delivery a callback scheduled): then it runs the
///    next pass at once, so the head of a response that arrived in this pass reaches its task
///    before the loop sleeps, usually with a small body complete and no second hop.
///
/// No work runs on Swift's cooperative pool and no Dispatch source exists per socket.
final class CurlEventLoop: @unchecked Sendable {
    // Safety of @unchecked Sendable: `multi` is written once in `init` and afterwards used by
    // other threads only through `commands` (for `curl_multi_wakeup`, which libcurl documents
    // as callable from any thread). `commands` is Sendable. Every other stored property is
    // touched only on the loop thread (inside `run()` and the functions it calls), which is the
    // single thread that ever runs them.

    private let multi: OpaquePointer
    /// The one way into the loop, for the transport and for the transfers.
    let commands: CurlCommandQueue
    /// The loop as a task executor: jobs of tasks that prefer it run on the loop thread.
    let executor: CurlLoopExecutor

    // Loop-thread state.
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var idleHandles: [CurlEasyHandle] = []
    private var spareCommands: [CurlCommandQueue.Command] = []
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
        let commands = CurlCommandQueue(waking: multi)
        self.commands = commands
        self.executor = CurlLoopExecutor(commands: commands)
        _ = parley_multi_setopt_long(multi, CURLMOPT_PIPELINING, parley_pipe_multiplex)
        _ = parley_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maximumConnectionsPerHost))
        _ = parley_multi_setopt_long(
            multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, configuration.maximumTotalConnections))
        // Keep enough idle connections cached for every host's limit to be reused.
        let cacheSize = max(configuration.maximumTotalConnections, configuration.maximumConnectionsPerHost * 4, 32)
        _ = parley_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cacheSize)

        let thread = Thread { [self] in self.run() }
        // Not `thread.name`: Foundation on Linux does not give the started thread that name (it
        // keeps the name of the thread that created it), so the loop names itself in `run()`.
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: - Any thread

    /// Stops the loop: every running transfer fails with a ``TransportError/Category-swift.struct/shutDown``
    /// error, the handles are freed, and the thread exits. Returns when it has.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            commands.shutDown(then: continuation)
        }
    }

    /// Asks the loop to stop without waiting (for `deinit`).
    func requestShutdown() {
        commands.requestShutdown()
    }

    // MARK: - Loop thread

    private func run() {
        // The name the system shows (`top -H`, debuggers, /proc), at most 15 bytes.
        parley_name_current_thread("parley-curl")
        var stillRunning: Int32 = 0
        while true {
            var taken = spareCommands
            let shuttingDown = commands.take(into: &taken)
            for command in taken { apply(command) }
            taken.removeAll(keepingCapacity: true)
            spareCommands = taken
            if shuttingDown { break }

            curl_multi_perform(multi, &stillRunning)
            drainFinished()
            checkStalls()

            // Wake at least every 250 ms while transfers run, for the stall check.
            if commands.announcePoll() {
                curl_multi_poll(multi, nil, 0, active.isEmpty ? 1000 : 250, nil)
            }
        }
        tearDown()
    }

    private func apply(_ command: CurlCommandQueue.Command) {
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
        case .deliver(let transfer):
            transfer.deliver()
        case .run(let job):
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        }
    }

    private func start(_ transfer: CurlTransfer) {
        let pooled = idleHandles.popLast()
        if pooled != nil { LiveCounts.easyHandlesPooled.decrement() }
        guard let handle = pooled ?? CurlEasyHandle() else {
            transfer.complete(
                .failure(
                    TransportError(
                        .other, message: "libcurl could not create a transfer handle (out of memory?).",
                        mayHaveReachedServer: false)))
            return
        }
        LiveCounts.easyHandlesCheckedOut.increment()
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
    private func restart(_ transfer: CurlTransfer, handle: CurlEasyHandle) {
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

    /// Takes back a handle a transfer held: into the pool, or freed when the pool is full.
    private func recycle(_ handle: CurlEasyHandle) {
        LiveCounts.easyHandlesCheckedOut.decrement()
        if idleHandles.count < 64 {
            // Back to libcurl's defaults if libcurl sent a request again by itself: see
            // `CurlEasyHandle.resetIfResent()` for the count that clears.
            handle.resetIfResent()
            idleHandles.append(handle)
            LiveCounts.easyHandlesPooled.increment()
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

    private func tearDown() {
        let shutDown = TransportError(
            .shutDown,
            message: "The transport was shut down while the transfer ran; create a new transport to send more requests."
        )
        for transfer in active.values { finish(transfer, with: .failure(shutDown)) }
        let (leftover, waiters) = commands.close()
        for command in leftover {
            switch command {
            case .start(let transfer): transfer.complete(.failure(shutDown))
            case .run(let job): CurlLoopExecutor.runElsewhere(job)
            case .cancel, .resumeReceiving, .resumeSending, .deliver: break
            }
        }
        for handle in idleHandles {
            handle.cleanup()
            LiveCounts.easyHandlesPooled.decrement()
        }
        idleHandles = []
        curl_multi_cleanup(multi)
        for waiter in waiters { waiter.resume() }
    }
}
