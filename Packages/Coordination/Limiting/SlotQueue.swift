import Transport

/// At most `limit` holders at a time; the others wait in the order they asked, and a waiter
/// whose task is cancelled leaves the queue at once.
///
/// Every successful ``acquire(url:)`` must be paired with exactly one ``release()``.
final class SlotQueue: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        /// Waiters in the order they asked; the first gets the next slot.
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// How many slots are held.
        var held = 0
    }

    /// The most holders at a time.
    let limit: Int
    private let state: PThreadMutex<State>

    /// A queue of `limit` slots; `limit` is at least one (callers check it).
    init(limit: Int) {
        self.limit = max(1, limit)
        state = PThreadMutex(State(available: max(1, limit)))
    }

    /// How many slots are held now.
    var held: Int { state.withLock { $0.held } }

    /// How many callers wait for a slot now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits for a slot, first come first served.
    ///
    /// - Parameter url: The URL of the request that waits, for the error.
    /// - Throws: A `.cancelled` ``/Transport/TransportError`` when the calling task is
    ///   cancelled while it waits; it then holds no slot.
    func acquire(url: String?) async throws {
        let id: UInt64? = state.withLock { state in
            if state.available > 0 && state.waiters.isEmpty {
                state.available -= 1
                state.held += 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await RequestCancellation.withCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // The cancellation flag is read under the lock the handler below takes, so a
                // cancellation is seen either here or there, never lost between the two.
                let cancelled = state.withLock { state in
                    guard !RequestCancellation.isCancelled else { return true }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: TransportError.cancelledWhileWaiting(url, for: "waited for a slot"))
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(
                throwing: TransportError.cancelledWhileWaiting(url, for: "waited for a slot"))
        }
    }

    /// Gives a slot back: to the first waiter, or to the pool.
    func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.held -= 1
                state.available += 1
                return nil
            }
            // The slot passes to the waiter: `held` stays the same.
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}

/// Gives a slot back exactly once, whoever asks first.
final class SlotRelease: Sendable {
    private let slots: SlotQueue
    private let released = PThreadMutex(false)

    init(_ slots: SlotQueue) {
        self.slots = slots
    }

    /// Releases the slot the first time; does nothing afterwards.
    func callAsFunction() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { slots.release() }
    }
}
