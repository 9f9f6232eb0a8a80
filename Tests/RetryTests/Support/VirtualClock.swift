import Foundation
import Retry
import Transport

/// A clock whose waits return at once and advance its time, and which records them.
final class VirtualClock: RetryClock {
    private struct State {
        var now: Duration = .seconds(1000)
        var waits: [Duration] = []
    }

    private let state = PThreadMutex(State())
    /// The wall time at `now == 1000 s`: 2026-11-22 03:00:00 GMT.
    let epoch = Date(timeIntervalSince1970: 1_795_316_400)

    var now: Duration { state.withLock { $0.now } }

    var date: Date {
        let elapsed = now - .seconds(1000)
        return epoch.addingTimeInterval(
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Every wait asked for, in order.
    var waits: [Duration] { state.withLock { $0.waits } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.waits.append(duration)
            state.now += max(.zero, duration)
        }
    }

    /// Moves time on without a wait (the time an attempt takes).
    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }
}

extension RetryPolicy {
    /// The policy with a virtual clock, a fixed jitter draw, and a budget of its own.
    static func testing(clock: VirtualClock, jitter: Double = 0.5, budget: RetryBudget? = RetryBudget()) -> RetryPolicy
    {
        var policy = RetryPolicy()
        policy.clock = clock
        policy.random = { jitter }
        policy.budget = budget
        return policy
    }
}
