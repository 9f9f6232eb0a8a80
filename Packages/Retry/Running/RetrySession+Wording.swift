import Foundation

extension RetrySession {
    /// The verdict as a sentence: "Gave up after 4 attempts over 3.2 s, the retry policy's
    /// limit.", "Not retried: …"; empty for a cancellation.
    ///
    /// - Parameters:
    ///   - stop: Why the retries stopped.
    ///   - attempts: The attempts made.
    ///   - elapsed: The time they took, when it is worth saying.
    /// - Returns: The sentence.
    package static func explain(_ stop: RetryStop, attempts: Int, elapsed: Duration?) -> String {
        let tried = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        let over = elapsed.map { " over \(format($0))" } ?? ""
        switch stop {
        case .final:
            return ""
        case .notRetryable(let reason):
            return "Not retried: \(reason)"
        case .retriesSpent:
            return "Gave up after \(tried)\(over), the retry policy's limit."
        case .deadline(let deadline):
            return "Gave up after \(tried)\(over): another would not start before the deadline of \(format(deadline))."
        case .retryAfterTooLong(let asked, let allowed, let byDeadline):
            let limit =
                byDeadline
                ? "the \(format(allowed)) left before the deadline"
                : "the longest wait the retry policy allows (\(format(allowed)))"
            return "The server asked to wait \(format(asked)) before trying again (Retry-After), longer than \(limit); "
                + "not retried. Try again later."
        case .budgetExhausted(let host):
            return "Not retried: so many recent attempts to \(host) failed that its retry budget is spent; retries "
                + "resume as requests to it succeed again."
        }
    }

    /// `1.5 s`, `2 min 5 s`, `250 ms`.
    ///
    /// - Parameter duration: The duration.
    /// - Returns: It in words.
    package static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return whole % 60 == 0 ? "\(whole / 60) min" : "\(whole / 60) min \(whole % 60) s"
    }
}
