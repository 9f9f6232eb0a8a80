import Foundation
import Transport

/// The bounded hand-over from a task pumping a streamed request body to the read callback.
///
/// The producer task suspends in ``push(_:)`` while ``highWaterMark`` bytes wait unsent; the
/// read callback takes bytes with ``read(into:)`` and, finding none, pauses the transfer
/// (`CURL_READFUNC_PAUSE`) until the next push asks the loop to resume sending.
final class UploadStreamBuffer: Sendable {
    /// What the read callback gets.
    enum ReadResult {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing is buffered yet: pause sending.
        case pause
        /// The body is complete.
        case end
        /// The producer failed.
        case failed(TransportError)
    }

    private struct State {
        var chunks: [Data] = []
        var offsetInFirst = 0
        var bufferedBytes = 0
        var isReaderPaused = false
        var producerWaiter: CheckedContinuation<Void, any Error>?
        var isFinished = false
        var failure: TransportError?
        var isClosed = false
    }

    /// The hand-over's state, shared by the producer and the loop.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())
    private let highWaterMark: Int
    private let resumeSending: @Sendable () -> Void

    /// Creates a buffer.
    ///
    /// - Parameters:
    ///   - highWaterMark: Bytes buffered before the producer is held back.
    ///   - resumeSending: Asks the loop to unpause sending.
    init(highWaterMark: Int, resumeSending: @escaping @Sendable () -> Void) {
        self.highWaterMark = max(1, highWaterMark)
        self.resumeSending = resumeSending
        LiveCounts.uploadStreamBuffers.increment()
    }

    deinit {
        LiveCounts.uploadStreamBuffers.decrement()
    }

    // MARK: - Producer task

    /// Adds a chunk, suspending while the buffer is full.
    func push(_ chunk: Data) async throws {
        guard !chunk.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // `parked`: the buffer is full, so the reader resumes this continuation once it has
            // drained it; otherwise the producer continues at once.
            let outcome: (closed: Bool, wake: Bool, parked: Bool) = state.withLock { state in
                if state.isClosed { return (true, false, false) }
                state.chunks.append(chunk)
                state.bufferedBytes += chunk.count
                let wake = state.isReaderPaused
                state.isReaderPaused = false
                let parked = state.bufferedBytes >= highWaterMark
                if parked { state.producerWaiter = continuation }
                return (false, wake, parked)
            }
            if outcome.closed {
                continuation.resume(throwing: CancellationError())
                return
            }
            if outcome.wake { resumeSending() }
            if !outcome.parked { continuation.resume() }
        }
    }

    /// Marks the body complete, or failed.
    func finish(failure: TransportError?) {
        let wake = state.withLock { state in
            state.isFinished = true
            state.failure = failure
            defer { state.isReaderPaused = false }
            return state.isReaderPaused
        }
        if wake { resumeSending() }
    }

    // MARK: - Loop thread

    /// Copies up to `buffer.count` bytes into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let (result, waiter): (ReadResult, CheckedContinuation<Void, any Error>?) = state.withLock { state in
            if let failure = state.failure { return (.failed(failure), nil) }
            var copied = 0
            while copied < buffer.count, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let available = chunk.count - state.offsetInFirst
                let count = min(available, buffer.count - copied)
                chunk.withUnsafeBytes { source in
                    let start = source.baseAddress.map { $0 + state.offsetInFirst }
                    if let start, let destination = buffer.baseAddress {
                        (destination + copied).copyMemory(from: start, byteCount: count)
                    }
                }
                copied += count
                if count == available {
                    state.chunks.removeFirst()
                    state.offsetInFirst = 0
                } else {
                    state.offsetInFirst += count
                }
            }
            state.bufferedBytes -= copied
            var waiter: CheckedContinuation<Void, any Error>?
            if state.bufferedBytes < highWaterMark / 2 || state.chunks.isEmpty {
                waiter = state.producerWaiter
                state.producerWaiter = nil
            }
            if copied > 0 { return (.bytes(copied), waiter) }
            if state.isFinished { return (.end, waiter) }
            state.isReaderPaused = true
            return (.pause, waiter)
        }
        waiter?.resume()
        return result
    }

    /// Stops the producer (the transfer ended or is being replayed).
    func close() {
        let waiter = state.withLock { state in
            state.isClosed = true
            state.chunks.removeAll()
            defer { state.producerWaiter = nil }
            return state.producerWaiter
        }
        waiter?.resume(throwing: CancellationError())
    }
}
