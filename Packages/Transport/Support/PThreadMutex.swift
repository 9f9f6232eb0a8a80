#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock protecting a value, with `Synchronization.Mutex`'s `withLock` API, on a
/// `pthread_mutex_t`.
///
/// It exists so that ThreadSanitizer can see the engine's and the handles' locking. On Linux,
/// `Mutex` is built on atomics and futexes inside the uninstrumented standard library: TSan
/// sees neither its acquire nor its release, so it reports every access made under a `Mutex`
/// from two threads as a race (a correct two-thread counter guarded by a `Mutex` is reported),
/// and such false reports would drown a true one. TSan intercepts `pthread_mutex_lock` and
/// `pthread_mutex_unlock` and orders what they guard. Uncontended, the two cost about what
/// `Mutex` costs: one atomic compare-and-swap each, in the C library.
///
/// The `pthread_mutex_t` must never move once initialised, so it lives in the tail of one heap
/// object, beside the value, and is destroyed with it: a lock costs one allocation. Copies of
/// a `PThreadMutex` share that object, and so the lock and the value.
package struct PThreadMutex<Value>: @unchecked Sendable {
    // Safety of @unchecked Sendable: the value is reachable only through `withLock`, which
    // holds the mutex while `body` runs; it enters as `sending` (a region no one else holds)
    // and leaves only through `body`'s `sending` result, as with `Mutex`.

    /// The value, and a byte that keeps the mutex apart from it.
    ///
    /// A value of no size (`PThreadMutex(())`, a plain lock) would otherwise share its address
    /// with the mutex in the tail, and ThreadSanitizer would report the mutex's own reads and
    /// writes against the `inout` access to the value that `withLock` makes under it.
    private struct Header {
        var value: Value
        let separator: UInt8 = 0
    }

    /// The value and, in its tail, the mutex.
    private final class Storage: ManagedBuffer<Header, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    /// The object that holds the value and the mutex.
    private let storage: Storage

    /// A lock protecting `initialValue`.
    ///
    /// The value is copied into the lock, and the argument destroyed; ``init(making:)`` makes
    /// a large value in place instead.
    package init(_ initialValue: sending Value) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in Header(value: initialValue) }
        storage = unsafeDowncast(buffer, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    /// A lock protecting the value `make` returns, made in place: neither copied into the lock
    /// nor destroyed after, which for a value of many fields (a handle's state machine, made on
    /// every request) costs as much as the rest of making the lock.
    package init(making make: () -> sending Value) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in Header(value: make()) }
        storage = unsafeDowncast(buffer, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// The lock is not recursive: calling `withLock` on the same lock from `body` deadlocks.
    @inline(__always)
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The pointers stay valid while `storage` lives, which `self` guarantees for the call.
        let (pointer, mutex) = storage.withUnsafeMutablePointers { ($0, $1) }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // Safety of nonisolated(unsafe): the region checker cannot see that the mutex makes
        // this thread the value's only user until `body` returns, which is what lets the value
        // be handed to `body` as `sending`; the same reasoning as `Mutex.withLock`.
        nonisolated(unsafe) let value = pointer
        return try body(&value.pointee.value)
    }
}
