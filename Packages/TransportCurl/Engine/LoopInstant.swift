import CCurl

/// An instant on the loop's clock: `CLOCK_MONOTONIC` in nanoseconds.
///
/// The loop reads the time a few times per pass and compares deadlines in its heap many times,
/// so it uses a plain integer: `ContinuousClock.Instant` is defined in a module built for
/// library evolution, which makes each of its copies, comparisons and sums a call. Reading
/// this clock is one vDSO call.
struct LoopInstant: Comparable, Hashable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary start (the system's boot).
    var nanoseconds: Int64

    /// The current instant.
    static func now() -> LoopInstant {
        LoopInstant(nanoseconds: parley_monotonic_nanoseconds())
    }

    /// The whole nanoseconds of `duration` (a duration beyond ±292 years is clamped).
    static func nanoseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || sumOverflow { return seconds < 0 ? .min : .max }
        return sum
    }

    /// This instant moved by `nanoseconds`.
    func advanced(byNanoseconds nanoseconds: Int64) -> LoopInstant {
        LoopInstant(nanoseconds: self.nanoseconds &+ nanoseconds)
    }

    static func + (instant: LoopInstant, duration: Duration) -> LoopInstant {
        instant.advanced(byNanoseconds: nanoseconds(of: duration))
    }

    static func < (lhs: LoopInstant, rhs: LoopInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant as nanoseconds, for test messages.
    var description: String { "\(nanoseconds) ns" }
}
