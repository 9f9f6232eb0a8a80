#if OpenAPI
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import Retry
    import ServerTestSupport
    import Testing
    import Transport

    /// A chain given as the transport applies to every operation: here, the retry link.
    @Suite struct OpenAPIChainTests {
        /// Retries with short real waits.
        func retrying(_ curl: any HTTPTransport) -> MiddlewareTransport {
            var policy = RetryPolicy()
            policy.baseDelay = .milliseconds(20)
            return MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: policy)])
        }

        @Test func aFailingOperationIsRetriedByTheChain() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on a chain that retries, and a route that fails twice with 503
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(retrying(curl)))

                // When the operation runs
                let (head, answer) = try await call.json(.get, "/flaky/2?key=openapi&retry-after=0")

                // Then the third attempt answered, and the server counted three
                #expect(head.status == .ok)
                #expect(answer["attempt"] as? Int == 3)
                #expect(server.requestCount(for: "/flaky/2") == 3)
            }
        }

        @Test func aReplayableBodyIsSentAgainOnARetry() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on a chain that retries, and a route that drops the first attempt
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(retrying(curl)))

                // When a POST with an idempotency key and a body that iterates more than once runs
                let (head, answer) = try await call.json(
                    .post, "/idempotent?resets=1&scope=openapi-replay",
                    headers: [HTTPField.Name("Idempotency-Key")!: "openapi-1"],
                    body: HTTPBody(#"{"report": "sunny"}"#)
                )

                // Then the second attempt sent it again and was applied once
                #expect(head.status == .ok)
                #expect(answer["attempts"] as? Int == 2)
                #expect(answer["applied"] as? Int == 1)
            }
        }

        @Test func aSinglePassBodyIsNotRetried() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on a chain that retries, and a route that drops the first attempt
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(retrying(curl)))
                let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
                continuation.yield(HTTPBody.ByteChunk(#"{"report": "rain"}"#.utf8))
                continuation.finish()

                // When a POST whose body can be read once runs
                var failure: (any Error)?
                do {
                    _ = try await call.send(
                        .post, "/idempotent?resets=1&scope=openapi-once",
                        headers: [HTTPField.Name("Idempotency-Key")!: "openapi-2"],
                        body: HTTPBody(stream, length: .unknown)
                    )
                } catch {
                    failure = error
                }

                // Then the retry link does not send it again: the call fails with the first
                // attempt's error, the server saw one attempt
                let clientError = try #require(failure as? ClientError)
                let transportError = try #require(clientError.underlyingError as? TransportError)
                #expect(transportError.category == .emptyReply)
                #expect(server.requestCount(for: "/idempotent") == 1)
            }
        }
    }
#endif
