/// Tracks whether a transfer has gone without moving a byte for its stall timeout.
///
/// The loop samples a transfer's running byte count eight times per stall timeout
/// (``checkInterval(for:)``), when the transfer's check comes due in the loop's deadline
/// heap; any change, or a pause the caller caused (a full response buffer, an empty
/// request-body stream), restarts the clock. A stall is so reported between one timeout and
/// nine eighths of it after the last byte moved, and each transfer costs the loop eight looks
/// per timeout, however many others run.
struct StallWatch {
    /// The time between two samples of a transfer whose stall timeout is `timeout`: an eighth
    /// of it, and at least a millisecond.
    static func checkInterval(for timeout: Duration) -> Duration {
        .nanoseconds(checkIntervalNanoseconds(for: timeout))
    }

    /// ``checkInterval(for:)`` in nanoseconds, computed without `Duration` arithmetic (each
    /// step of which is a call into the standard library).
    static func checkIntervalNanoseconds(for timeout: Duration) -> Int64 {
        max(LoopInstant.nanoseconds(of: timeout) / 8, 1_000_000)
    }

    private var lastBytes: Int64 = -1
    /// When the byte count last changed (or an excused sample restarted the clock); `nil`
    /// before the first sample.
    private var since: LoopInstant?

    /// Starts the clock at `now` with the transfer's byte count.
    mutating func start(bytesMoved: Int64, now: LoopInstant) {
        lastBytes = bytesMoved
        since = now
    }

    /// Whether the transfer has been idle for at least `timeout` as of `now`.
    mutating func isStalled(bytesMoved: Int64, excused: Bool, now: LoopInstant, timeout: Duration) -> Bool {
        guard bytesMoved == lastBytes, !excused, let since else {
            start(bytesMoved: bytesMoved, now: now)
            return false
        }
        return now.nanoseconds - since.nanoseconds >= LoopInstant.nanoseconds(of: timeout)
    }
}
