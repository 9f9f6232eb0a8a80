import Foundation
import Testing
import Transport

@Suite struct RequestBodyTests {
    @Test func aFactoryStreamCanBePumpedTwice() async throws {
        let body = RequestBody.stream(length: 6) {
            AsyncStream<Data> { continuation in
                continuation.yield(Data("abc".utf8))
                continuation.yield(Data("def".utf8))
                continuation.finish()
            }
        }
        guard case .stream(let stream) = body.content else {
            Issue.record("not a stream")
            return
        }
        #expect(body.isReplayable)
        for _ in 0..<2 {
            let collected = PThreadMutex(Data())
            try await stream.pump { chunk in collected.withLock { $0.append(chunk) } }
            #expect(collected.withLock { $0 } == Data("abcdef".utf8))
        }
    }

    @Test func aOneShotStreamRefusesASecondPumpWithAClearError() async throws {
        let sequence = AsyncStream<Data> { continuation in
            continuation.yield(Data("once".utf8))
            continuation.finish()
        }
        let body = RequestBody.stream(oneShot: sequence)
        guard case .stream(let stream) = body.content else {
            Issue.record("not a stream")
            return
        }
        #expect(!body.isReplayable)
        try await stream.pump { _ in }
        let error = await #expect(throws: TransportError.self) { try await stream.pump { _ in } }
        #expect(error?.category == .invalidBody)
        #expect(error?.message.contains("one-shot") == true)
    }

    @Test func bytesAndFilesKnowTheirLength() {
        #expect(RequestBody.string("hello").length == 5)
        #expect(RequestBody.file(path: "/tmp/x", offset: 10, length: 20).length == 20)
        #expect(RequestBody.file(path: "/tmp/x").length == nil)
    }
}
