public import Foundation

/// The time a retry policy reads and waits on: the system's clocks by default, a virtual clock
/// in tests, so that backoff, deadlines and `Retry-After` dates are checked without waiting.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.clock = myVirtualClock   // `sleep` advances `now` at once
/// ```
public protocol RetryClock: Sendable {
    /// A reading of a monotonic clock: only differences between readings mean anything.
    var now: Duration { get }
    /// The wall-clock time, for `Retry-After` in its HTTP-date form.
    var date: Date { get }
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The system's clocks: `ContinuousClock` for readings and waits, `Date()` for the wall time.
public struct SystemRetryClock: RetryClock {
    /// The reading `now` counts from.
    private static let origin = ContinuousClock.now

    /// Creates the clock.
    public init() {}

    /// Time since an arbitrary point in the past, on `ContinuousClock`.
    public var now: Duration { ContinuousClock.now - Self.origin }

    /// `Date()`.
    public var date: Date { Date() }

    /// `Task.sleep(for:)` on `ContinuousClock`; returns at once for a zero or negative wait.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(for: duration)
    }
}
