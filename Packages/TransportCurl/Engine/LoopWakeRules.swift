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
    /// the timer callback, from what `curl_multi_timeout` then says (`nil` when it could not).
    ///
    /// libcurl calls the callback only when its earliest expiry changes, and libcurl 7.x not at
    /// all when the action leaves it no timer: a timeout action forgets the expiry it last
    /// reported, so "none now" is no change. That happens whenever a transfer outlives a timer
    /// libcurl no longer needs (the connect timeout once connected stays in its timer tree and
    /// comes to nothing). Taking the silence for a timer still pending, and asking again a
    /// millisecond on, would keep such a loop waking every millisecond for as long as it stays
    /// idle; so the loop asks libcurl instead: -1 (no timer), 0 (at once), or the
    /// milliseconds to the expiry, at least 1 while one is still ahead. Only when libcurl
    /// cannot answer does the loop ask again a millisecond on, so that no transfer can hang.
    static func curlTimerAfterSilentTimeout(libcurlSays milliseconds: Int?, now: LoopInstant) -> LoopInstant? {
        guard let milliseconds else { return now.advanced(byNanoseconds: 1_000_000) }
        return curlTimer(milliseconds: milliseconds, now: now)
    }
}
