import Transport

/// Turns a download's byte counts into progress events: at most one per interval, with the
/// average rate since the run began, and the final one on demand.
struct ProgressMeter {
    /// The shortest time between two events that are not final.
    let interval: Duration
    private let clock = ContinuousClock()
    private let startedAt: ContinuousClock.Instant
    private var lastEmission: ContinuousClock.Instant?
    /// Bytes received in this run, across attempts: the numerator of the rate.
    private var received: Int64 = 0

    /// Starts measuring now.
    init(interval: Duration) {
        self.interval = interval
        startedAt = clock.now
    }

    /// Counts bytes received.
    mutating func add(_ count: Int) {
        received += Int64(count)
    }

    /// An event for `completed` bytes, or `nil` when the last one was less than an interval ago.
    mutating func progress(completed: Int64, total: Int64?) -> TransferProgress? {
        let now = clock.now
        if let lastEmission, now - lastEmission < interval { return nil }
        lastEmission = now
        return TransferProgress(completed: completed, total: total, bytesPerSecond: rate(at: now), isFinal: false)
    }

    /// The final event, sent whatever the interval.
    func finalProgress(completed: Int64) -> TransferProgress {
        TransferProgress(completed: completed, total: completed, bytesPerSecond: rate(at: clock.now), isFinal: true)
    }

    /// bytes received ÷ seconds since the run began.
    private func rate(at now: ContinuousClock.Instant) -> Double {
        let seconds = (now - startedAt) / .seconds(1)
        return seconds > 0 ? Double(received) / seconds : 0
    }
}
