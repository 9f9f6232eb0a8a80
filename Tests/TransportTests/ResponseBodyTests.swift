import Foundation
import Testing
import Transport

@Suite struct ResponseBodyTests {
    final class ChunkStream: ResponseBodyStream {
        let chunks: PThreadMutex<[Data]>
        let cancelled = PThreadMutex(false)
        init(_ chunks: [Data]) { self.chunks = PThreadMutex(chunks) }
        func next() async throws -> Data? { chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        func cancel() { cancelled.withLock { $0 = true } }
    }

    @Test func collectsAStreamedBodyWithinTheLimit() async throws {
        let body = ResponseBody(stream: ChunkStream([Data("ab".utf8), Data("cd".utf8)]))
        #expect(try await body.collect(upTo: 4) == Data("abcd".utf8))
    }

    @Test func failsAndCancelsWhenAStreamedBodyPassesTheLimit() async throws {
        let stream = ChunkStream([Data("ab".utf8), Data("cd".utf8)])
        let body = ResponseBody(stream: stream)
        let error = await #expect(throws: TransportError.self) { try await body.collect(upTo: 3) }
        #expect(error?.category == .responseTooLarge)
        #expect(stream.cancelled.withLock { $0 })
    }

    @Test func iteratesACollectedBodyAsOneChunk() async throws {
        var chunks: [Data] = []
        for try await chunk in ResponseBody(Data("xyz".utf8)) { chunks.append(chunk) }
        #expect(chunks == [Data("xyz".utf8)])
        var none = 0
        for try await _ in ResponseBody() { none += 1 }
        #expect(none == 0)
    }
}
