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
        max(timeout / 8, .milliseconds(1))
    }

    private var lastBytes: Int64 = -1
    /// When the byte count last changed (or an excused sample restarted the clock); `nil`
    /// before the first sample.
    private var since: ContinuousClock.Instant?

    /// Whether the transfer has been idle for at least `timeout` as of `now`.
    mutating func isStalled(bytesMoved: Int64, excused: Bool, now: ContinuousClock.Instant, timeout: Duration) -> Bool {
        guard bytesMoved == lastBytes, !excused, let since else {
            lastBytes = bytesMoved
            since = now
            return false
        }
        return now - since >= timeout
    }
}
