import Foundation
import Transport

/// A streamed response body passed on chunk by chunk while a copy is kept, up to a limit;
/// when the consumer reaches the end, the copy is handed to `onComplete` (to be stored).
///
/// A body over the limit, one that fails, or one cancelled before its end hands over nothing.
final class RecordingBodyStream: ResponseBodyStream {
    private struct State {
        var collected = Data()
        var isAbandoned = false
        var isFinished = false
    }

    private let body: ResponseBody
    private let limit: Int
    private let onComplete: @Sendable (Data) async -> Void
    private let state = PThreadMutex(State())

    init(body: ResponseBody, limit: Int, onComplete: @escaping @Sendable (Data) async -> Void) {
        self.body = body
        self.limit = limit
        self.onComplete = onComplete
    }

    func next() async throws -> Data? {
        // Every iterator of a streamed body shares its single pass, so a fresh one continues
        // where the last left off.
        var iterator = body.makeAsyncIterator()
        let chunk: Data?
        do {
            chunk = try await iterator.next()
        } catch {
            state.withLock { $0.isAbandoned = true }
            throw error
        }
        if let chunk {
            state.withLock { state in
                guard !state.isAbandoned else { return }
                if state.collected.count + chunk.count > limit {
                    state.isAbandoned = true
                    state.collected = Data()
                } else {
                    state.collected.append(chunk)
                }
            }
            return chunk
        }
        let complete = state.withLock { state -> Data? in
            guard !state.isAbandoned, !state.isFinished else { return nil }
            state.isFinished = true
            return state.collected
        }
        if let complete { await onComplete(complete) }
        return nil
    }

    func cancel() {
        state.withLock { $0.isAbandoned = true }
        body.cancel()
    }
}
