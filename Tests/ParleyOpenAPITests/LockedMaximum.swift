import Transport

/// The largest value recorded, behind the project's lock.
final class LockedMaximum: Sendable {
    private let state = PThreadMutex(0)

    /// Keeps `value` when it is the largest so far.
    func record(_ value: Int) { state.withLock { $0 = max($0, value) } }

    /// The largest value recorded, 0 before any.
    var value: Int { state.withLock { $0 } }
}
