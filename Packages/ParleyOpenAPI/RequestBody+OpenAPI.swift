#if OpenAPI
    import Foundation
    import OpenAPIRuntime
    import Transport

    extension RequestBody {
        /// A request body that streams an OpenAPI body: replayable when the body iterates more
        /// than once, one-shot otherwise; sent with `Content-Length` when its length is known,
        /// chunked otherwise.
        init(openAPIBody body: HTTPBody) {
            let length: Int64? =
                switch body.length {
                case .known(let count): count
                case .unknown: nil
                }
            switch body.iterationBehavior {
            case .multiple:
                self = .stream(length: length) { OpenAPIBodyChunks(body: body) }
            case .single:
                self = .stream(length: length, oneShot: OpenAPIBodyChunks(body: body))
            }
        }
    }

    /// The chunks of an OpenAPI body as `Data`, the unit of a Parley request body.
    struct OpenAPIBodyChunks: AsyncSequence, Sendable {
        typealias Element = Data
        typealias Failure = any Error

        let body: HTTPBody

        func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

        struct Iterator: AsyncIteratorProtocol {
            var base: HTTPBody.Iterator

            mutating func next() async throws -> Data? {
                guard let chunk = try await base.next() else { return nil }
                return Data(chunk)
            }
        }
    }
#endif
