import Foundation
import Testing

@testable import Transport

/// The lock the engine and the handles use instead of `Mutex`, so that ThreadSanitizer sees
/// their locking.
///
/// Checked to fail without the lock: with `withLock` not taking the mutex,
/// `keepsEveryIncrementOfTwoThreads` loses increments. Under `make sanitize` it also shows
/// that ThreadSanitizer sees the lock: the same counter in a `Synchronization.Mutex` is
/// reported as a race there.
@Suite struct PThreadMutexTests {
    @Test func keepsEveryIncrementOfTwoThreads() async {
        let counter = PThreadMutex(0)
        let increments = 20_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = PThreadMutex(0)
            for _ in 0..<2 {
                // Threads of their own rather than tasks, so that both run at once even on a
                // pool of one.
                Thread {
                    for _ in 0..<increments {
                        counter.withLock { value in
                            // Giving the processor away between the read and the write lets the
                            // other thread in, unless the lock keeps it out.
                            let read = value
                            sched_yield()
                            value = read + 1
                        }
                    }
                    let last = finished.withLock { count in
                        count += 1
                        return count == 2
                    }
                    if last { done.resume() }
                }.start()
            }
        }
        #expect(counter.withLock { $0 } == 2 * increments)
    }

    @Test func returnsWhatTheBodyReturnsAndKeepsWhatItChanged() {
        let state = PThreadMutex([1, 2])
        let count = state.withLock { values in
            values.append(3)
            return values.count
        }
        #expect(count == 3)
        #expect(state.withLock { $0 } == [1, 2, 3])
    }

    @Test func passesTheBodysErrorThroughAndUnlocks() {
        struct Failure: Error {}
        let state = PThreadMutex(0)
        #expect(throws: Failure.self) {
            try state.withLock { (_: inout Int) throws(Failure) in throw Failure() }
        }
        // The lock is free again: a second `withLock` would otherwise never return.
        #expect(state.withLock { $0 } == 0)
    }

    @Test func sharesTheLockAndTheValueBetweenCopies() {
        let original = PThreadMutex("a")
        let copy = original
        copy.withLock { $0 = "b" }
        #expect(original.withLock { $0 } == "b")
    }
}
