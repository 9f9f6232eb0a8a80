#if OpenAPI
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import ServerTestSupport
    import Testing
    import Transport

    /// Bodies of 128 MiB each way, never held whole by the transport: an upload's producer runs
    /// only a little ahead of what the server has read, and a download's first bytes reach the
    /// reader while the server has not sent the rest.
    @Suite struct OpenAPIStreamingTests {
        static let size = 128 << 20
        /// How far an upload's producer may run ahead of the server: the engine's and the
        /// sockets' buffers, with a wide margin. A transport that collected the body first would
        /// be the whole body ahead.
        static let allowedLead = 32 << 20

        @Test func aLargeUploadStreamsFromTheOperationsSequence() async throws {
            try await withServerAndTransport { server, curl in
                // Given a single-pass body of unknown length that makes its chunks as they are
                // asked for, and notes how far it is ahead of what the server has read
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))
                let lead = LockedMaximum()
                let chunks = LazyChunks(total: Self.size) { produced in
                    let received = server.receivedRequests().first { $0.path == "/upload" }?.bodyLength ?? 0
                    lead.record(produced - received)
                }
                let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)

                // When it is posted
                let (head, answer) = try await call.json(.post, "/upload", body: body)

                // Then the server read every byte, chunked, and the producer never ran far ahead
                #expect(head.status == .ok)
                #expect(answer["bodyLength"] as? Int == Self.size)
                #expect(answer["transferEncoding"] as? String == "chunked")
                #expect(lead.value < Self.allowedLead, "the producer ran \(lead.value >> 20) MiB ahead")
            }
        }

        @Test func aLargeDownloadArrivesWhole() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))

                // When a radar image of 128 MiB is read chunk by chunk
                let (head, body) = try await call.send(.get, "/weather/radar?city=Toronto&size=\(Self.size)")
                let image = try #require(body)
                var count = 0
                for try await chunk in image { count += chunk.count }

                // Then every byte arrived, as many as its length says
                #expect(head.status == .ok)
                #expect(image.length == .known(Int64(Self.size)))
                #expect(count == Self.size)
            }
        }

        @Test func aDownloadsBytesReachTheReaderBeforeItsEnd() async throws {
            try await withServerAndTransport { server, curl in
                // Given a body of which the server sends 8 MiB and then waits for the client to
                // leave (a transport that collected it would wait for its end until the stall
                // timeout, and fail)
                var options = TransferOptions()
                options.stallTimeout = .seconds(20)
                let call = try OpenAPICall(
                    serverURL: server.baseURL, transport: OpenAPITransport(curl, options: options))
                let sent = 8 << 20

                // When the reader reads what was sent, then stops
                let (head, body) = try await call.send(.get, "/stall?after=\(sent)")
                var iterator = try #require(body).makeAsyncIterator()
                var count = 0
                while count < sent, let chunk = try await iterator.next() { count += chunk.count }

                // Then all of it arrived while the transfer was still open
                #expect(head.status == .ok)
                #expect(count == sent)
            }
        }
    }

    /// `total` bytes in 64 KiB chunks, each made when it is asked for; calls `progress` with the
    /// bytes made so far every 64 chunks.
    struct LazyChunks: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        typealias Failure = Never

        let total: Int
        let progress: @Sendable (Int) -> Void

        func makeAsyncIterator() -> Iterator { Iterator(remaining: total, progress: progress) }

        struct Iterator: AsyncIteratorProtocol {
            var remaining: Int
            let progress: @Sendable (Int) -> Void
            var made = 0

            mutating func next() async -> HTTPBody.ByteChunk? {
                guard remaining > 0 else { return nil }
                let count = Swift.min(remaining, 64 << 10)
                remaining -= count
                made += count
                if made % (4 << 20) == 0 { progress(made) }
                return HTTPBody.ByteChunk(repeating: UInt8(truncatingIfNeeded: made >> 16), count: count)
            }
        }
    }
#endif
