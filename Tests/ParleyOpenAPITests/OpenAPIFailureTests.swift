#if OpenAPI
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import ServerTestSupport
    import TestSupport
    import Testing
    import Transport
    import TransportCurl

    /// Cancellation and failures: what a generated client's caller sees.
    @Suite struct OpenAPIFailureTests {
        /// The transport error under a generated client's `ClientError`.
        func transportError(of error: any Error) throws -> TransportError {
            let clientError = try #require(error as? ClientError, "not a ClientError: \(error)")
            return try #require(
                clientError.underlyingError as? TransportError, "under it: \(clientError.underlyingError)")
        }

        /// What `operation` throws; `nil` when it returns.
        func error<T>(of operation: () async throws -> T) async -> (any Error)? {
            do {
                _ = try await operation()
                return nil
            } catch {
                return error
            }
        }

        @Test func aCancelledCallCancelsItsTransfer() async throws {
            try await withServerAndTransport { server, curl in
                // Given an operation the server answers after a minute
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))
                let task = Task { try await call.send(.get, "/delay/20000") }
                try await waitUntil { server.requestCount(for: "/delay/20000") == 1 }

                // When its task is cancelled
                task.cancel()

                // Then the call ends at once with the transport's cancellation under the ClientError
                let error = try #require(await task.result.failure)
                #expect(try transportError(of: error).category == .cancelled)
            }
        }

        @Test func aCancelledReadOfTheBodyCancelsItsTransfer() async throws {
            try await withServerAndTransport { server, curl in
                // Given a body that stops after 1000 bytes and never ends (a stall timeout far
                // away, so that only the cancellation can end it soon)
                var options = TransferOptions()
                options.stallTimeout = .seconds(120)
                let call = try OpenAPICall(
                    serverURL: server.baseURL, transport: OpenAPITransport(curl, options: options))
                let received = LockedMaximum()
                let task = Task {
                    let (_, body) = try await call.send(.get, "/stall?after=1000")
                    var count = 0
                    for try await chunk in try #require(body) {
                        count += chunk.count
                        received.record(count)
                    }
                }
                try await waitUntil { received.value == 1000 }

                // When the task reading it is cancelled
                task.cancel()

                // Then the read ends with the transport's cancellation
                let error = try #require(await task.result.failure)
                #expect((error as? TransportError)?.category == .cancelled, "\(error)")
            }
        }

        @Test func aRefusedConnectionShowsItsCategoryAndMessage() async throws {
            // Given a client whose server listens nowhere (port 1 of loopback)
            let curl = try CurlTransport()
            let call = try OpenAPICall(serverURL: "http://127.0.0.1:1/api", transport: OpenAPITransport(curl))

            // When an operation runs
            let failure = await error { try await call.send(.get, "/sysTime") }
            await curl.shutdown()

            // Then the ClientError carries the transport error, its category and its message
            let error = try #require(failure)
            let transportError = try transportError(of: error)
            #expect(transportError.category == .connectionRefused)
            #expect(!transportError.message.isEmpty)
            #expect((error as? ClientError)?.causeDescription == "Transport threw an error.")
        }

        @Test func aServerURLThatIsNotHTTPFailsWithATypedError() async throws {
            // Given a client made with an ftp server URL
            let curl = try CurlTransport()
            let call = try OpenAPICall(serverURL: "ftp://127.0.0.1/files", transport: OpenAPITransport(curl))

            // When an operation runs
            let failure = await error { try await call.send(.get, "/sysTime") }
            await curl.shutdown()

            // Then it fails before any transfer, saying the URL is invalid
            #expect(try transportError(of: try #require(failure)).category == .invalidURL)
        }
    }
#endif
