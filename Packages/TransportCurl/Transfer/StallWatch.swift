/// Tracks whether a transfer has gone without moving a byte for its stall timeout.
///
/// The loop samples a transfer's running byte count a few times a second; any change, or a
/// pause the caller caused (a full response buffer, an empty request-body stream), restarts
/// the clock.
struct StallWatch {
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
