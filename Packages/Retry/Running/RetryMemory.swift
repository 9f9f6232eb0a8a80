import Transport

/// What one logical request remembers from one run to the next (a reload by hand, or a
/// person's "retry"): its `Idempotency-Key`, and until when the server asked it to wait.
///
/// Make one per logical request and pass it to every ``RetryLoop`` that runs it.
public final class RetryMemory: Sendable {
    /// The key every attempt carries, when the request has one.
    public let idempotencyKey: String?
    /// The clock reading before which the server asked not to be asked again.
    private let notBefore = PThreadMutex<Duration?>(nil)
    /// Attempts made over every run.
    private let attempts = PThreadMutex(0)

    /// Creates the memory of a new logical request.
    ///
    /// - Parameter idempotencyKey: The key its attempts carry, if any.
    public init(idempotencyKey: String? = nil) {
        self.idempotencyKey = idempotencyKey
    }

    /// The earliest clock reading the next attempt may start at.
    var earliestNextAttempt: Duration? {
        get { notBefore.withLock { $0 } }
        set { notBefore.withLock { $0 = newValue } }
    }

    /// Counts an attempt; returns the count over every run.
    func countAttempt() -> Int {
        attempts.withLock { count in
            count += 1
            return count
        }
    }

    /// Attempts made over every run.
    public var attemptCount: Int { attempts.withLock { $0 } }
}
