import CCurl
import Foundation
import Transport

/// The thread that owns one libcurl multi handle and every transfer on it.
///
/// Other threads never touch curl: they post a ``CurlCommandQueue/Command`` to the loop's
/// ``commands`` queue, which wakes the loop if it waits. Calls go one way: the loop calls its
/// transfers, and a transfer asks anything of the loop only by posting to that same queue
/// (from the loop's own thread too, to have a streamed head or body handed over before the
/// loop next sleeps).
///
/// The loop drives libcurl through its socket interface. libcurl's socket callback
/// (`CURLMOPT_SOCKETFUNCTION`) says which sockets to watch for what, and the loop keeps them
/// in an epoll set (``EpollSet``) beside its wakeup eventfd (``CurlLoopWakeup``); libcurl's
/// timer callback (`CURLMOPT_TIMERFUNCTION`) says when it next wants to run its timers. Every
/// attached transfer sits in a heap ordered by its next stall check (``DeadlineHeap``). The
/// loop then, over and over:
///
/// 1. takes the queued commands and applies each (start, cancel, resume reading or sending,
///    deliver a streamed head or body bytes, run a job, shut down);
/// 2. waits in `epoll_wait` until a socket is ready, a command wakes it, or libcurl's timer or
///    the earliest stall check comes (``LoopWakeRules``); it does not sleep at all when
///    commands were posted during the pass (a delivery a callback scheduled), so the head of
///    a response that arrived in a pass reaches its task before the loop sleeps, usually with
///    a small body complete and no second hop;
/// 3. tells libcurl about each ready socket (`curl_multi_socket_action` with the
///    ``SocketReadiness`` bits), which runs the C callbacks of the transfers on it only;
/// 4. runs libcurl's timers when they are due (`CURL_SOCKET_TIMEOUT`): connect and transfer
///    timeouts, and a transfer to run again at once, as after `curl_easy_pause` lifts a pause
///    or `curl_multi_add_handle` adds one (and asks libcurl for its next one with
///    `curl_multi_timeout` when the timer callback said nothing);
/// 5. reads finished transfers with `curl_multi_info_read` and completes them;
/// 6. checks the transfers whose stall check is due, and fails those that stalled.
///
/// No step walks every transfer: a pass costs what its ready sockets, due timers and due
/// checks cost, whatever the number in flight. No work runs on Swift's cooperative pool and
/// no Dispatch source exists per socket.
final class CurlEventLoop: @unchecked Sendable {
    // Safety of @unchecked Sendable: `multi`, `sockets` and `wakeup` are written once in `init`;
    // afterwards other threads reach the loop only through `commands` (which signals
    // `wakeup`, an eventfd any thread may write, under its lock and never after the loop has
    // closed it). `commands` and `executor` are Sendable. Every other stored property, and
    // `multi` and `sockets` themselves, are touched only on the loop thread (inside `run()`, the
    // functions it calls and libcurl's callbacks into `onSocket` and `onTimer`, which libcurl
    // makes on the thread that called it), the single thread that ever runs them.

    private let multi: OpaquePointer
    /// The sockets libcurl watches, and the wakeup descriptor.
    private let sockets: EpollSet
    /// The descriptor that ends the loop's wait when a command is posted.
    private let wakeup: CurlLoopWakeup
    /// The one way into the loop, for the transport and for the transfers.
    let commands: CurlCommandQueue
    /// The loop as a task executor: jobs of tasks that prefer it run on the loop thread.
    let executor: CurlLoopExecutor

    // Loop-thread state.
    //
    // The two collections below are not checked for exclusive access at run time (each
    // transfer started and finished cost several checks of the runtime's access set). Safety:
    // they are touched on the loop thread only, and no access overlaps another to the same
    // property: the heap's and the array's methods only move elements and set each
    // transfer's own `deadlineHeapIndex`, and never call back into the loop.
    /// Every attached transfer, ordered by its next stall check.
    @exclusivity(unchecked) private var attached = DeadlineHeap<CurlTransfer>()
    @exclusivity(unchecked) private var idleHandles: [CurlEasyHandle] = []
    private var spareCommands: [CurlCommandQueue.Command] = []
    /// When libcurl wants its timers run, as its timer callback last said; `nil` for never.
    private var curlTimer: LoopInstant?
    /// How many times libcurl's timer callback has been called (it is called only on a change).
    private var curlTimerCalls = 0

    /// Creates the multi handle and starts the loop thread.
    ///
    /// - Throws: ``TransportError`` when libcurl cannot be initialised, or the system gives no
    ///   epoll set or eventfd.
    init(configuration: CurlTransport.Configuration) throws {
        guard CurlGlobal.initialized, let multi = curl_multi_init() else {
            throw TransportError(
                .other,
                message: "libcurl could not be initialised (curl_global_init or curl_multi_init failed); "
                    + "check that libcurl \(CurlGlobal.version) is installed correctly.",
                mayHaveReachedServer: false
            )
        }
        let sockets: EpollSet
        let wakeup: CurlLoopWakeup
        do {
            sockets = try EpollSet()
            do {
                wakeup = try CurlLoopWakeup()
            } catch {
                sockets.close()
                throw error
            }
            do {
                try sockets.watchWakeup(wakeup)
            } catch {
                wakeup.close()
                sockets.close()
                throw error
            }
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        self.multi = multi
        self.sockets = sockets
        self.wakeup = wakeup
        let commands = CurlCommandQueue(waking: wakeup)
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
        // Unretained: the loop outlives the multi handle, which its own thread frees last.
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = parley_multi_setopt_socket_callback(multi, CURLMOPT_SOCKETFUNCTION, curlSocketCallback)
        _ = parley_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        _ = parley_multi_setopt_timer_callback(multi, CURLMOPT_TIMERFUNCTION, curlTimerCallback)
        _ = parley_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)

        let thread = Thread { [self] in self.run() }
        // Not `thread.name`: Foundation on Linux does not give the started thread that name (it
        // keeps the name of the thread that created it), so the loop names itself in `run()`.
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The transfers a loop runs from which it counts as crowded: a collected transfer that
    /// starts on it then takes a smaller receive buffer
    /// (``CurlTransfer/crowdedCollectedReceiveBufferSize``). With 64 requests in flight over
    /// two loops no loop is crowded; with 1,000 or more every loop is, after its first 64.
    static let crowdedThreshold = 64

    // MARK: - Any thread

    /// Stops the loop: every running transfer fails with a ``/Transport/ErrorCategory/shutDown``
    /// error, the handles are freed, and the thread exits. Returns when it has.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            commands.shutDown(then: continuation)
        }
    }

    /// Asks the loop to stop without waiting (for `deinit`, and for the end of a graceful
    /// shutdown's grace period, whose transfers still running fail with `error`).
    func requestShutdown(failingRunningWith error: TransportError? = nil) {
        commands.requestShutdown(failingRunningWith: error)
    }

    /// Refuses new transfers from now on: the first step of a graceful shutdown.
    func stopAccepting() {
        commands.stopAccepting()
    }

    /// Returns once the loop has no transfer left, or has stopped.
    func drained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            commands.whenDrained(continuation)
        }
    }

    // MARK: - Loop thread

    private func run() {
        // The name the system shows (`top -H`, debuggers, /proc), at most 15 bytes.
        parley_name_current_thread("parley-curl")
        var stillRunning: Int32 = 0
        while true {
            var taken = spareCommands
            let pass = commands.take(into: &taken)
            for command in taken { apply(command) }
            taken.removeAll(keepingCapacity: true)
            spareCommands = taken
            if pass.isShutDown { break }
            // A graceful shutdown waits for the last transfer: none was left, or none started.
            if pass.awaitsDrain && attached.isEmpty { commands.drained() }

            // Commands posted during the pass keep the loop from sleeping; ready sockets are
            // still read (a wait of 0).
            let timeout = LoopWakeRules.timeout(
                now: .now(), curlTimer: curlTimer, nextStallCheck: attached.earliestDeadline,
                commandsPending: !commands.announcePoll())
            sockets.wait(timeout: timeout) { descriptor, events in
                if descriptor == wakeup.descriptor {
                    wakeup.drain()
                    return
                }
                let bits = SocketReadiness.selectBits(events: events, watched: sockets.watchedEvents(of: descriptor))
                if bits != 0 { curl_multi_socket_action(multi, descriptor, bits, &stillRunning) }
            }

            let now = LoopInstant.now()
            if LoopWakeRules.isDue(curlTimer, now: now) {
                let calls = curlTimerCalls
                curl_multi_socket_action(multi, parley_socket_timeout, 0, &stillRunning)
                if curlTimerCalls == calls {
                    // libcurl said nothing: ask it, rather than take its silence for a timer
                    // still pending (see `LoopWakeRules.curlTimerAfterSilentTimeout`).
                    var milliseconds = -1
                    let asked = curl_multi_timeout(multi, &milliseconds) == CURLM_OK
                    curlTimer = LoopWakeRules.curlTimerAfterSilentTimeout(
                        libcurlSays: asked ? milliseconds : nil, now: .now())
                }
            }
            drainFinished()
            checkStalls(now: now)
            // Or the last one ended in this pass.
            if pass.awaitsDrain && attached.isEmpty { commands.drained() }
        }
        tearDown()
    }

    // MARK: - libcurl's multi callbacks (loop thread)

    /// libcurl wants `socket` watched for `what` (`CURL_POLL_*`); `easy` is a transfer on it.
    func onSocket(_ socket: Int32, what: Int32, easy: OpaquePointer?) {
        let (watching, error) = sockets.watch(socket, what: what)
        guard !watching, let easy else { return }
        // The system refused to watch the socket: the transfer could only wait for a timeout.
        var context: UnsafeMutableRawPointer?
        _ = parley_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
        guard let context else { return }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        commands.post(
            .cancel(
                transfer,
                TransportError(
                    .other,
                    message: "The engine could not watch the transfer's socket (epoll_ctl: "
                        + "\(String(cString: strerror(error)))); raise the system's limit on epoll watches "
                        + "(fs.epoll.max_user_watches) or send fewer requests at once.",
                    url: transfer.currentURL)))
    }

    /// libcurl wants its timers run in `milliseconds` (0: at once; -1: it has none).
    func onTimer(milliseconds: Int) {
        curlTimerCalls &+= 1
        curlTimer = LoopWakeRules.curlTimer(milliseconds: milliseconds, now: .now())
    }

    // MARK: - Commands

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
        case .applySuspension(let transfer):
            // A transfer not attached yet reads the wish as it attaches.
            transfer.applySuspension(now: .now())
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
            try transfer.attach(to: handle, crowded: attached.count >= Self.crowdedThreshold)
        } catch {
            recycle(handle)
            transfer.complete(.failure(TransportError(wrapping: error, url: transfer.initialURL)))
            return
        }
        attached.insert(transfer, deadline: transfer.startStallWatch(now: .now()))
        let code = curl_multi_add_handle(multi, handle.pointer)
        if code != CURLM_OK {
            attached.remove(transfer)
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
        attached.remove(transfer)
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

    /// Checks the transfers whose stall check is due, and fails those that stalled; the others
    /// are checked again later. Looks at no other transfer.
    private func checkStalls(now: LoopInstant) {
        while let transfer = attached.firstDue(at: now) {
            switch transfer.checkStall(now: now) {
            case .checkAgain(let next):
                attached.rescheduleFirst(to: next)
            case .stalled(let error):
                finish(transfer, with: .failure(error))
            }
        }
    }

    private func tearDown() {
        let shutDown = TransportError(
            .shutDown,
            message: "The transport was shut down while the transfer ran; create a new transport to send more requests."
        )
        let running = commands.shutdownError ?? shutDown
        for transfer in attached.elements { finish(transfer, with: .failure(running)) }
        let (leftover, waiters) = commands.close()
        for command in leftover {
            switch command {
            case .start(let transfer): transfer.complete(.failure(shutDown))
            case .run(let job): CurlLoopExecutor.runElsewhere(job)
            case .cancel, .resumeReceiving, .resumeSending, .applySuspension, .deliver: break
            }
        }
        for handle in idleHandles {
            handle.cleanup()
            LiveCounts.easyHandlesPooled.decrement()
        }
        idleHandles = []
        // libcurl may still call the socket callback while it closes its cached connections.
        curl_multi_cleanup(multi)
        sockets.close()
        // The queue is closed: nothing signals the wakeup descriptor any more.
        wakeup.close()
        for waiter in waiters { waiter.resume() }
    }
}
