import Synchronization

/// The index of the next request, shared by the workers of a round.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// The next index, from 0.
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
