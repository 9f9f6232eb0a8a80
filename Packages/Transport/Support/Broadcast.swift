/// Hands each element to every current subscriber's `AsyncStream`, in order.
///
/// Yielding never blocks: a subscriber that falls behind loses its oldest unread elements
/// (each keeps the newest `bufferSize`). ``finish()`` ends every stream, and a stream made
/// after that ends at once, after the replayed element if one was given.
package final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var isFinished = false
    }

    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())
    private let bufferSize: Int

    /// Creates a broadcast whose subscribers each buffer up to `bufferSize` unread elements.
    package init(bufferSize: Int) {
        self.bufferSize = max(1, bufferSize)
    }

    /// A new stream of the elements yielded from now on, starting with `first` when given.
    package func subscribe(startingWith first: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(bufferSize))
        if let first { continuation.yield(first) }
        let registered = state.withLock { state in
            guard !state.isFinished else { return false }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            return true
        }
        if !registered { continuation.finish() }
        return stream
    }

    /// Gives `element` to every subscriber.
    ///
    /// Yielding to an `AsyncStream` only enqueues, so callers may hold their own lock here to
    /// keep elements from different threads in the order of their own state changes.
    package func yield(_ element: Element) {
        state.withLock { state in
            for subscriber in state.subscribers.values { subscriber.yield(element) }
        }
    }

    /// Ends every stream; later subscriptions end at once.
    ///
    /// Must not be called with a lock held that a stream's termination handler takes: it
    /// runs those handlers.
    package func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
