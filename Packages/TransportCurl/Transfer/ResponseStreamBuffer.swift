import Foundation
import Transport

/// The bounded hand-over between the loop thread, which receives body bytes, and the task
/// that consumes a streaming response.
///
/// Bytes are copied once, from libcurl's buffer into blocks (``ResponseBlock``), and handed to
/// the consumer in those blocks as `Data` that shares them. A block the consumer frees goes
/// back to ``ResponseBlocks``, which keeps large ones for the next, so a download reuses the
/// same memory throughout. A stream's blocks start small and double each time one fills, up to
/// 256 KiB: a stream that trickles keeps small blocks, a download fills large ones.
///
/// A waiting consumer is not resumed for every write-callback chunk: the loop hands it the
/// first waiting block, or the one being filled, once per pass (``flush()``), and the next
/// ``next()`` calls take the blocks that wait without suspending.
///
/// Backpressure: once ``highWaterMark`` bytes wait unread, ``offer(_:)`` answers `.pause` and
/// the write callback returns `CURL_WRITEFUNC_PAUSE`, so libcurl stops reading the socket
/// (and TCP flow control slows the server). When the consumer has taken enough that fewer
/// bytes wait, ``next()`` calls `resumeReceiving`, which unpauses the transfer on the loop.
final class ResponseStreamBuffer: ResponseBodyStream {
    /// What the write callback should do with the bytes it offered.
    enum Offer {
        /// The bytes were taken; when `wakeConsumer`, a consumer is waiting and the loop
        /// should ``flush()`` at the end of its pass.
        case accepted(wakeConsumer: Bool)
        /// The buffer is full: return `CURL_WRITEFUNC_PAUSE`; the same bytes come again later.
        case pause
        /// The consumer cancelled: abort the transfer.
        case abort
    }

    private struct State {
        /// Blocks filled, or handed over part-filled, waiting for the consumer, oldest first.
        var ready: [Data] = []
        /// The block the next bytes go into, if any.
        var filling: ResponseBlock?
        /// The bytes in `ready` and `filling`.
        var waiting = 0
        /// The size the stream's blocks have grown to.
        var blockSize = ResponseBlocks.smallestSize
        var isPaused = false
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, TransportError>?
        var isCancelled = false

        /// Copies `bytes` into the block being filled, and into new ones as each fills.
        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            var rest = bytes
            while !rest.isEmpty {
                var block =
                    filling ?? ResponseBlock(capacity: ResponseBlocks.capacity(for: rest.count, growingFrom: blockSize))
                filling = nil
                let copied = block.append(rest)
                rest = UnsafeRawBufferPointer(rebasing: rest[copied...])
                if block.isFull {
                    blockSize = min(block.capacity * 2, ResponseBlocks.largeSize)
                    ready.append(block.data())
                } else {
                    filling = block
                }
            }
            waiting += bytes.count
        }

        /// The oldest waiting bytes: the first filled block, else the one being filled.
        mutating func take() -> Data? {
            if !ready.isEmpty {
                let data = ready.removeFirst()
                waiting -= data.count
                return data
            }
            guard let block = filling, block.count > 0 else { return nil }
            filling = nil
            waiting -= block.count
            return block.data()
        }

        /// Whether the transfer, paused for a full buffer, may go on now that bytes were taken:
        /// clears the pause when it may.
        mutating func mayResume(below highWaterMark: Int) -> Bool {
            guard isPaused, waiting < highWaterMark else { return false }
            isPaused = false
            return true
        }

        /// Drops every waiting byte.
        mutating func discardWaiting() {
            ready = []
            filling?.discard()
            filling = nil
            waiting = 0
        }
    }

    /// Bytes buffered before the transfer pauses.
    let highWaterMark: Int
    /// The hand-over's state, shared by the loop and the consumer.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())
    private let resumeReceiving: @Sendable () -> Void
    private let cancelTransfer: @Sendable () -> Void
    private let suspendTransfer: @Sendable (Bool) -> Void

    /// Creates a buffer.
    ///
    /// - Parameters:
    ///   - highWaterMark: Bytes buffered before the transfer pauses.
    ///   - resumeReceiving: Asks the loop to unpause the transfer.
    ///   - cancelTransfer: Asks the loop to cancel the transfer.
    ///   - suspendTransfer: Asks the loop to pause or unpause the transfer as the reading
    ///     request handle is suspended or resumed (a read is a wait that honours both).
    init(
        highWaterMark: Int,
        resumeReceiving: @escaping @Sendable () -> Void,
        cancelTransfer: @escaping @Sendable () -> Void,
        suspendTransfer: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.highWaterMark = max(1, highWaterMark)
        self.resumeReceiving = resumeReceiving
        self.cancelTransfer = cancelTransfer
        self.suspendTransfer = suspendTransfer
        LiveCounts.responseStreamBuffers.increment()
    }

    deinit {
        state.withLock { $0.discardWaiting() }
        LiveCounts.responseStreamBuffers.decrement()
    }

    // MARK: - Loop thread

    /// Offers received bytes; called from the write callback.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Offer {
        state.withLock { state in
            if state.isCancelled { return .abort }
            if state.waiting >= highWaterMark {
                state.isPaused = true
                return .pause
            }
            state.append(bytes)
            return .accepted(wakeConsumer: state.waiter != nil)
        }
    }

    /// Hands the oldest waiting bytes to a waiting consumer; called by the loop once per pass.
    ///
    /// - Returns: `true` when the transfer was paused for a full buffer that now has room:
    ///   the caller (on the loop) must unpause it.
    func flush() -> Bool {
        let delivery: (CheckedContinuation<Data?, any Error>, Data, Bool)? = state.withLock { state in
            guard let waiter = state.waiter, let data = state.take() else { return nil }
            state.waiter = nil
            return (waiter, data, state.mayResume(below: highWaterMark))
        }
        guard let (waiter, data, resumes) = delivery else { return false }
        waiter.resume(returning: data)
        return resumes
    }

    /// Ends the body: the waiting bytes, then `nil`, or the error.
    func finish(_ outcome: Result<Void, TransportError>) {
        let delivery: (CheckedContinuation<Data?, any Error>, Data?)? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = outcome
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.take())
        }
        guard let (waiter, data) = delivery else { return }
        if let data {
            waiter.resume(returning: data)
            return
        }
        switch outcome {
        case .success: waiter.resume(returning: nil)
        case .failure(let error): waiter.resume(throwing: error)
        }
    }

    // MARK: - Consumer

    func next() async throws -> Data? {
        try await RequestCancellation.withCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Action {
                    case data(Data, resume: Bool)
                    case end(Result<Void, TransportError>)
                    case wait
                }
                let action: Action = state.withLock { state in
                    if let data = state.take() {
                        return .data(data, resume: state.mayResume(below: highWaterMark))
                    }
                    if let end = state.end { return .end(end) }
                    if state.isCancelled { return .end(.failure(Self.cancelledError)) }
                    state.waiter = continuation
                    return .wait
                }
                switch action {
                case .data(let data, let resume):
                    if resume { resumeReceiving() }
                    continuation.resume(returning: data)
                case .end(.success):
                    continuation.resume(returning: nil)
                case .end(.failure(let error)):
                    continuation.resume(throwing: error)
                case .wait:
                    break
                }
            }
        } onCancel: {
            cancel()
        } onSuspensionChange: { suspended in
            suspendTransfer(suspended)
        }
    }

    func cancel() {
        let (waiter, wasRunning): (CheckedContinuation<Data?, any Error>?, Bool) = state.withLock { state in
            guard !state.isCancelled else { return (nil, false) }
            state.isCancelled = true
            state.discardWaiting()
            defer { state.waiter = nil }
            return (state.waiter, state.end == nil)
        }
        waiter?.resume(throwing: Self.cancelledError)
        if wasRunning { cancelTransfer() }
    }

    static let cancelledError = TransportError(
        .cancelled, message: "The response body was cancelled by its consumer before it was read to the end.")
}
