/// How many of a known number of parts are done: "7 of 20 done, 1 failed".
///
/// A handle that stands for several requests (Coordination's batches) reports one as a
/// ``RequestEvent/count(_:)`` each time a member finishes; Feedback draws it as a bar that
/// counts parts instead of bytes.
public struct CountProgress: Sendable, Hashable {
    /// The parts finished so far, failed ones included.
    public var completed: Int
    /// How many of ``completed`` failed (or were cancelled).
    public var failed: Int
    /// How many parts there are.
    public var total: Int

    /// Creates a count.
    ///
    /// - Parameters:
    ///   - completed: The parts finished so far, failed ones included.
    ///   - failed: How many of them failed; none by default.
    ///   - total: How many parts there are.
    public init(completed: Int, failed: Int = 0, total: Int) {
        self.completed = completed
        self.failed = failed
        self.total = total
    }

    /// How many of ``completed`` succeeded.
    public var succeeded: Int { max(0, completed - failed) }

    /// `completed / total` in `0...1`; `1` when there are no parts at all.
    public var fractionCompleted: Double {
        guard total > 0 else { return 1 }
        return min(1, max(0, Double(completed) / Double(total)))
    }

    /// Whether every part has finished.
    public var isFinal: Bool { completed >= total }
}
