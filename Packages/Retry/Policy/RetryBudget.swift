import Synchronization
import Transport

/// A token bucket per host that stops retries while a service fails for everyone, in the
/// manner of gRPC's retry throttling.
///
/// Each host starts with ``maximumTokens``. An attempt that fails in a way the policy would
/// retry takes one token; a request that gets an answer the policy would not retry (a success,
/// or a failure no retry can change) gives back ``tokensPerSuccess``. While a host holds half
/// of ``maximumTokens`` or fewer, its failures are not retried: the error's category is
/// `retryBudgetExhausted`. A first attempt is never held back, only retries.
///
/// With the defaults (10 tokens, 0.1 back per success), a host that fails everything gets at
/// most 5 retries from the whole process before retries stop, and needs 50 successes to earn
/// them back, whatever the number of requests in flight. Policies share
/// ``RetryBudget/shared`` unless given their own.
public final class RetryBudget: Sendable {
    /// The tokens a host starts with and never exceeds.
    public let maximumTokens: Double
    /// The tokens a successful request gives back.
    public let tokensPerSuccess: Double

    /// The hosts below ``maximumTokens``; a full host has no entry.
    private let buckets = PThreadMutex<[String: Double]>([:])
    /// How many hosts ``buckets`` holds, readable without the lock: while it is zero (every
    /// host full, the usual case) a success has nothing to refill and takes no lock.
    private let depletedHosts = Atomic<Int>(0)

    /// The budget every ``RetryPolicy`` uses unless given another: one per process, so that
    /// every client of the process counts against the same hosts.
    public static let shared = RetryBudget()

    /// Creates a budget.
    ///
    /// - Parameters:
    ///   - maximumTokens: Tokens per host, 10 by default; retries stop at half of them.
    ///   - tokensPerSuccess: Tokens a success gives back, 0.1 by default.
    public init(maximumTokens: Double = 10, tokensPerSuccess: Double = 0.1) {
        self.maximumTokens = max(1, maximumTokens)
        self.tokensPerSuccess = max(0, tokensPerSuccess)
    }

    /// The tokens `host` holds now.
    ///
    /// - Parameter host: The host, as ``RetryRequest/host`` names it (`name:port`).
    public func tokens(for host: String) -> Double {
        buckets.withLock { $0[host] ?? maximumTokens }
    }

    /// Takes a token for an attempt that failed in a way the policy retries, then says whether
    /// a retry is still allowed.
    ///
    /// - Parameter host: The host that failed.
    /// - Returns: `true` while the host holds more than half of ``maximumTokens``.
    public func recordFailure(for host: String) -> Bool {
        buckets.withLock { buckets in
            let tokens = max(0, (buckets[host] ?? maximumTokens) - 1)
            buckets[host] = tokens
            depletedHosts.store(buckets.count, ordering: .relaxed)
            return tokens > maximumTokens / 2
        }
    }

    /// Gives back ``tokensPerSuccess`` for a request that got an answer a retry would not change.
    ///
    /// - Parameter host: The host that answered.
    public func recordSuccess(for host: String) {
        // A stale zero only skips a refill that a failure recorded a moment ago: the next
        // success refills it.
        guard depletedHosts.load(ordering: .relaxed) > 0 else { return }
        buckets.withLock { buckets in
            guard let tokens = buckets[host] else { return }  // full already
            let refilled = tokens + tokensPerSuccess
            if refilled >= maximumTokens {
                buckets[host] = nil
                depletedHosts.store(buckets.count, ordering: .relaxed)
            } else {
                buckets[host] = refilled
            }
        }
    }

    /// Whether some host holds fewer than ``maximumTokens``: while none does, a success has
    /// nothing to refill. Read without a lock.
    public var hasDepletedHosts: Bool {
        depletedHosts.load(ordering: .relaxed) > 0
    }

    /// Whether `host` may be retried now, without taking anything.
    ///
    /// - Parameter host: The host.
    /// - Returns: `true` while it holds more than half of ``maximumTokens``.
    public func allowsRetry(to host: String) -> Bool {
        tokens(for: host) > maximumTokens / 2
    }
}
