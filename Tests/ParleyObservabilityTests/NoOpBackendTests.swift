#if Observability
    import HTTPTypes
    import ParleyObservability
    import TestSupport
    import Testing
    import Transport

    /// Without a bootstrapped backend, the links hand every request on as it came.
    @Suite struct NoOpBackendTests {
        @Test(arguments: [0, 1])
        func withNoBackendTheRequestPassesUntouched(link: Int) async throws {
            // Given a link and no metrics or tracing backend
            let middleware: any TransportMiddleware = link == 0 ? RequestTelemetry() : AttemptTelemetry()
            let request = try TransportRequest(method: .get, url: "http://127.0.0.1:1/untouched")
            let seen = LockedRecorder<TransportRequest>()

            // When a request goes through it
            let response = try await middleware.intercept(request) { request in
                seen.append(request)
                return TransportResponse(head: HTTPResponse(status: .ok), body: ResponseBody(), url: request.url)
            }

            // Then the next link sees the same head, no event handler and no user info
            #expect(response.status == .ok)
            let passed = try #require(seen.all.first)
            #expect(passed.head == request.head)
            #expect(passed.options.eventHandler == nil)
            #expect(passed.userInfo.isEmpty)
        }
    }
#endif
