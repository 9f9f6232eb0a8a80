import NIOConcurrencyHelpers

/// Counts requests per key, thread-safely, for `/flaky`.
final class AttemptCounter: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// Counts one more attempt for `key`.
    ///
    /// - Returns: The attempt number, 1 for the first.
    func nextAttempt(for key: String) -> Int {
        counts.withLockedValue { counts in
            let attempt = counts[key, default: 0] + 1
            counts[key] = attempt
            return attempt
        }
    }
}
