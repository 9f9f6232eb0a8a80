import Foundation
import Retry
import Transport

/// A retry clock whose waits return at once, advancing its time, and which records them: the
/// tests check the waits a stream asked for without waiting.
final class RecordingClock: RetryClock {
    private struct State {
        var now: Duration = .seconds(1000)
        var waits: [Duration] = []
    }

    private let state = PThreadMutex(State())

    var now: Duration { state.withLock { $0.now } }
    var date: Date { Date(timeIntervalSince1970: 1_795_316_400) }

    /// Every wait asked for, in order.
    var waits: [Duration] { state.withLock { $0.waits } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.waits.append(duration)
            state.now += max(.zero, duration)
        }
    }
}

extension RetryPolicy {
    /// A policy on `clock`, with no jitter (the backoff is zero) and a budget of its own.
    static func testing(clock: RecordingClock, maximumRetries: Int = 3, budget: RetryBudget = RetryBudget()) -> Self {
        var policy = RetryPolicy()
        policy.clock = clock
        policy.random = { 0 }
        policy.maximumRetries = maximumRetries
        policy.budget = budget
        return policy
    }
}
