#if OpenAPI
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import ServerTestSupport
    import Testing
    import Transport

    /// Bodies of 128 MiB each way, never held whole: the process's resident set, sampled while
    /// they flow, grows by far less than the body. (A transport that collected a body would hold
    /// all of it; other suites running meanwhile in the same process stay well under the margin.)
    @Suite(.serialized) struct OpenAPIStreamingTests {
        static let size = 128 << 20
        static let allowedGrowth = 64 << 20

        @Test func aLargeUploadStreamsFromTheOperationsSequence() async throws {
            try await withServerAndTransport { server, curl in
                // Given a single-pass body of unknown length that makes its chunks as they are asked for
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))
                let peak = PeakResidentSet()
                let chunks = LazyChunks(total: Self.size, peak: peak)
                let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)

                // When it is posted
                let (head, answer) = try await call.json(.post, "/upload", body: body)

                // Then the server read every byte, chunked, and memory stayed bounded
                #expect(head.status == .ok)
                #expect(answer["bodyLength"] as? Int == Self.size)
                #expect(answer["transferEncoding"] as? String == "chunked")
                #expect(peak.growth < Self.allowedGrowth, "grew by \(peak.growth >> 20) MiB")
            }
        }

        @Test func aLargeDownloadStreamsToTheOperationsReader() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))
                let peak = PeakResidentSet()

                // When a radar image of 128 MiB is read chunk by chunk
                let (head, body) = try await call.send(.get, "/weather/radar?city=Toronto&size=\(Self.size)")
                let image = try #require(body)
                var count = 0
                var chunks = 0
                for try await chunk in image {
                    count += chunk.count
                    chunks += 1
                    if chunks % 64 == 0 { peak.sample() }
                }

                // Then every byte arrived, and memory stayed bounded
                #expect(head.status == .ok)
                #expect(count == Self.size)
                #expect(peak.growth < Self.allowedGrowth, "grew by \(peak.growth >> 20) MiB")
            }
        }
    }

    /// The largest resident set seen since it was made, above the one it was made with.
    final class PeakResidentSet: Sendable {
        private let baseline = residentBytes()
        private let peak = LockedMaximum()

        /// Reads the resident set now.
        func sample() { peak.record(residentBytes()) }

        /// How far above the baseline the resident set went.
        var growth: Int { max(0, peak.value - baseline) }
    }

    /// `total` bytes in 64 KiB chunks, each made when it is asked for; samples the resident set
    /// every 64 chunks.
    struct LazyChunks: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        typealias Failure = Never

        let total: Int
        let peak: PeakResidentSet

        func makeAsyncIterator() -> Iterator { Iterator(remaining: total, peak: peak) }

        struct Iterator: AsyncIteratorProtocol {
            var remaining: Int
            let peak: PeakResidentSet
            var made = 0

            mutating func next() async -> HTTPBody.ByteChunk? {
                guard remaining > 0 else { return nil }
                let count = Swift.min(remaining, 64 << 10)
                remaining -= count
                made += 1
                if made % 64 == 0 { peak.sample() }
                return HTTPBody.ByteChunk(repeating: UInt8(truncatingIfNeeded: made), count: count)
            }
        }
    }
#endif
