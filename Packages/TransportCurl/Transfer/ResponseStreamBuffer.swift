import Foundation
import Synchronization
import Transport

/// The bounded hand-over between the loop thread, which receives body bytes, and the task
/// that consumes a streaming response.
///
/// Backpressure: once ``highWaterMark`` bytes wait unread, ``offer(_:)`` answers `.pause` and
/// the write callback returns `CURL_WRITEFUNC_PAUSE`, so libcurl stops reading the socket
/// (and TCP flow control slows the server). When the consumer has drained the buffer to half
/// the mark, ``next()`` calls `resumeReceiving`, which unpauses the transfer on the loop.
final class ResponseStreamBuffer: ResponseBodyStream {
    /// What the write callback should do with the bytes it offered.
    enum Offer {
        /// The bytes were taken.
        case accepted
        /// The buffer is full: return `CURL_WRITEFUNC_PAUSE`; the same bytes come again later.
        case pause
        /// The consumer cancelled: abort the transfer.
        case abort
    }

    private struct State {
        var chunks: [Data] = []
        var head = 0
        var bufferedBytes = 0
        var isPaused = false
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, TransportError>?
        var isCancelled = false
    }

    /// Bytes buffered before the transfer pauses.
    let highWaterMark: Int
    private let state = Mutex(State())
    private let resumeReceiving: @Sendable () -> Void
    private let cancelTransfer: @Sendable () -> Void

    /// Creates a buffer.
    ///
    /// - Parameters:
    ///   - highWaterMark: Bytes buffered before the transfer pauses.
    ///   - resumeReceiving: Asks the loop to unpause the transfer.
    ///   - cancelTransfer: Asks the loop to cancel the transfer.
    init(
        highWaterMark: Int,
        resumeReceiving: @escaping @Sendable () -> Void,
        cancelTransfer: @escaping @Sendable () -> Void
    ) {
        self.highWaterMark = max(1, highWaterMark)
        self.resumeReceiving = resumeReceiving
        self.cancelTransfer = cancelTransfer
    }

    // MARK: - Loop thread

    /// Offers received bytes; called from the write callback.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Offer {
        enum Action {
            case deliver(CheckedContinuation<Data?, any Error>)
            case done(Offer)
        }
        let chunk = Data(bytes)
        let action: Action = state.withLock { state in
            if state.isCancelled { return .done(.abort) }
            if let waiter = state.waiter {
                state.waiter = nil
                return .deliver(waiter)
            }
            if state.bufferedBytes >= highWaterMark {
                state.isPaused = true
                return .done(.pause)
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            return .done(.accepted)
        }
        switch action {
        case .deliver(let waiter):
            waiter.resume(returning: chunk)
            return .accepted
        case .done(let offer):
            return offer
        }
    }

    /// Ends the body: `nil` chunks after the buffered ones, or the error.
    func finish(_ outcome: Result<Void, TransportError>) {
        let waiter: CheckedContinuation<Data?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        switch outcome {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    // MARK: - Consumer

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Action {
                    case chunk(Data, resume: Bool)
                    case end(Result<Void, TransportError>)
                    case wait
                }
                let action: Action = state.withLock { state in
                    if state.head < state.chunks.count {
                        let chunk = state.chunks[state.head]
                        state.head += 1
                        state.bufferedBytes -= chunk.count
                        if state.head == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        var resume = false
                        if state.isPaused && state.bufferedBytes <= highWaterMark / 2 {
                            state.isPaused = false
                            resume = true
                        }
                        return .chunk(chunk, resume: resume)
                    }
                    if let end = state.end { return .end(end) }
                    if state.isCancelled { return .end(.failure(Self.cancelledError)) }
                    state.waiter = continuation
                    return .wait
                }
                switch action {
                case .chunk(let chunk, let resume):
                    if resume { resumeReceiving() }
                    continuation.resume(returning: chunk)
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
        }
    }

    func cancel() {
        let (waiter, wasRunning): (CheckedContinuation<Data?, any Error>?, Bool) = state.withLock { state in
            guard !state.isCancelled else { return (nil, false) }
            state.isCancelled = true
            state.chunks.removeAll()
            state.head = 0
            state.bufferedBytes = 0
            defer { state.waiter = nil }
            return (state.waiter, state.end == nil)
        }
        waiter?.resume(throwing: Self.cancelledError)
        if wasRunning { cancelTransfer() }
    }

    static let cancelledError = TransportError(
        .cancelled, message: "The response body was cancelled by its consumer before it was read to the end.")
}
