/// When the loop's wait in epoll must end, and what libcurl's timer callback means: pure
/// functions of instants, tested as tables.
///
/// The loop sleeps in `epoll_wait` until a socket is ready, a command wakes it, or the
/// earlier of two deadlines comes: libcurl's timer (`CURLMOPT_TIMERFUNCTION`: connect and
/// transfer timeouts, resolver polls, a transfer to run again at once) and the next stall
/// check of a transfer. Commands queued during the pass (a delivery a callback scheduled) keep
/// it from sleeping at all.
enum LoopWakeRules {
    /// The longest wait `epoll_wait` is given (an hour), well inside its `int` of milliseconds.
    static let longestWaitNanoseconds: Int64 = 3_600_000_000_000

    /// The `epoll_wait` timeout in milliseconds: -1 to wait for a socket or a wakeup alone, 0
    /// not to sleep, otherwise the time to the earlier deadline, rounded up to a whole
    /// millisecond (rounding down would wake the loop before the deadline and make it spin
    /// until it comes).
    ///
    /// - Parameters:
    ///   - now: The current instant.
    ///   - curlTimer: When libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`; `nil`
    ///     when it has no timer.
    ///   - nextStallCheck: The earliest stall check of a transfer; `nil` with no transfer.
    ///   - commandsPending: Whether commands wait in the queue.
    static func timeout(
        now: LoopInstant, curlTimer: LoopInstant?, nextStallCheck: LoopInstant?, commandsPending: Bool
    ) -> Int32 {
        if commandsPending { return 0 }
        let deadline: LoopInstant
        switch (curlTimer, nextStallCheck) {
        case (nil, nil): return -1
        case (let timer?, nil): deadline = timer
        case (nil, let check?): deadline = check
        case (let timer?, let check?): deadline = min(timer, check)
        }
        guard deadline > now else { return 0 }
        let wait = min(deadline.nanoseconds - now.nanoseconds, longestWaitNanoseconds)
        return Int32((wait + 999_999) / 1_000_000)
    }

    /// The instant libcurl's timer callback asks for: `nil` for -1 (no timer), `now` for 0
    /// (act at once), otherwise `now` plus the milliseconds.
    static func curlTimer(milliseconds: Int, now: LoopInstant) -> LoopInstant? {
        guard milliseconds >= 0 else { return nil }
        return now.advanced(byNanoseconds: Int64(milliseconds) * 1_000_000)
    }

    /// Whether libcurl's timer has come.
    static func isDue(_ curlTimer: LoopInstant?, now: LoopInstant) -> Bool {
        guard let curlTimer else { return false }
        return curlTimer <= now
    }

    /// libcurl's timer after a `CURL_SOCKET_TIMEOUT` action during which libcurl did not call
    /// the timer callback.
    ///
    /// libcurl calls it only when its earliest expiry changes. When the action ran that
    /// expiry, the earliest one is another, and libcurl says so; when libcurl said nothing,
    /// the expiry is still pending: libcurl reports a timer in whole milliseconds, rounded
    /// down, so the loop can wake a fraction of a millisecond before libcurl counts the time
    /// as come. The timer then stays, one millisecond on, so that the loop asks again instead
    /// of either forgetting it (a transfer would hang) or spinning until it is due.
    static func curlTimerAfterSilentTimeout(_ curlTimer: LoopInstant?, now: LoopInstant) -> LoopInstant? {
        guard let curlTimer else { return nil }
        return curlTimer <= now ? now.advanced(byNanoseconds: 1_000_000) : curlTimer
    }
}
