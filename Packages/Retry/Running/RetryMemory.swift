import Transport

/// What one logical request remembers from one run to the next (a reload by hand, or a
/// person's "retry"): its `Idempotency-Key`, and until when the server asked it to wait.
///
/// Make one per logical request and pass it to every ``RetryLoop`` that runs it.
public final class RetryMemory: Sendable {
    /// The key every attempt carries, when the request has one.
    public let idempotencyKey: String?
    /// What changes from attempt to attempt, under one lock: a memory is made for every
    /// request, and each lock is an allocation.
    private let state = PThreadMutex(State())

    private struct State {
        /// The clock reading before which the server asked not to be asked again.
        var notBefore: Duration?
        /// Attempts made over every run.
        var attempts = 0
    }

    /// Creates the memory of a new logical request.
    ///
    /// - Parameter idempotencyKey: The key its attempts carry, if any.
    public init(idempotencyKey: String? = nil) {
        self.idempotencyKey = idempotencyKey
    }

    /// The earliest clock reading the next attempt may start at.
    var earliestNextAttempt: Duration? {
        get { state.withLock { $0.notBefore } }
        set { state.withLock { $0.notBefore = newValue } }
    }

    /// Counts an attempt; returns the count over every run.
    func countAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// Attempts made over every run.
    public var attemptCount: Int { state.withLock { $0.attempts } }
}
