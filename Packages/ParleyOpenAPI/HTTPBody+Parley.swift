#if OpenAPI
    import Foundation
    import HTTPTypes
    import OpenAPIRuntime
    import Transport

    extension HTTPBody {
        /// The body of a Parley response as an OpenAPI body: in memory when the transport
        /// collected it, streamed chunk by chunk (single pass) otherwise.
        ///
        /// Its length is the response's `Content-Length` when it is the length of what the
        /// client reads, that is without a `Content-Encoding` the engine may decode.
        convenience init(_ response: TransportResponse) {
            if let data = response.body.collectedData {
                self.init(data)
                return
            }
            let length: HTTPBody.Length
            if response.head.headerFields[.contentEncoding] == nil,
                let value = response.head.headerFields[.contentLength], let count = Int64(value)
            {
                length = .known(count)
            } else {
                length = .unknown
            }
            self.init(
                ParleyResponseChunks(owner: ResponseBodyOwner(body: response.body)),
                length: length,
                iterationBehavior: .single
            )
        }
    }

    /// Cancels a streaming response's transfer when the OpenAPI body that reads it is released:
    /// a client that drops a body without reading it to the end frees the connection at once
    /// instead of leaving the transfer to the stall timeout.
    final class ResponseBodyOwner: Sendable {
        let body: ResponseBody

        init(body: ResponseBody) { self.body = body }

        // A stream tolerates `cancel()` at any time, after its end too (`ResponseBodyStream`).
        deinit { body.cancel() }
    }

    /// The chunks of a Parley response body as OpenAPI byte chunks.
    struct ParleyResponseChunks: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        typealias Failure = any Error

        let owner: ResponseBodyOwner

        func makeAsyncIterator() -> Iterator { Iterator(owner: owner, base: owner.body.makeAsyncIterator()) }

        struct Iterator: AsyncIteratorProtocol {
            /// Keeps the body alive, and its transfer running, while it is read.
            let owner: ResponseBodyOwner
            var base: ResponseBody.AsyncIterator

            mutating func next() async throws -> HTTPBody.ByteChunk? {
                guard let chunk = try await base.next() else { return nil }
                return HTTPBody.ByteChunk(chunk)
            }
        }
    }
#endif
