#if OpenAPI
    import Feedback
    import FeedbackTesting
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import ServerTestSupport
    import Testing
    import Transport
    import TransportCurl

    /// The feedback middleware: a mask over each shown operation, a bar over its bodies.
    @Suite struct OpenAPIFeedbackTests {
        let recorder = RecordingPresenter()
        let panel = Panel(title: "Radar")

        /// A middleware that shows `operations` on the panel through the recorder.
        func feedback(operations: Set<String>? = nil) -> OpenAPIFeedback {
            OpenAPIFeedback(
                load: LoadType.default(container: panel).presenting(through: recorder),
                progress: ProgressType.bar(label: "Radar").presenting(through: recorder),
                operations: operations
            )
        }

        @Test func aShownOperationHasAMaskAndABarToItsBodysEnd() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client that shows the radar operation
                let call = try OpenAPICall(
                    serverURL: server.baseURL, transport: OpenAPITransport(curl),
                    middlewares: [feedback(operations: ["getRadar"])])

                // When its image of 1 MiB is read
                let (_, body) = try await call.send(
                    .get, "/weather/radar?city=Toronto&size=1048576", operationID: "getRadar")
                var count = 0
                for try await chunk in try #require(body) { count += chunk.count }

                // Then the panel was masked and cleared, and the bar went to 100 % and ended
                #expect(count == 1_048_576)
                #expect(recorder.everMasked(panel))
                #expect(recorder.maskOutcomes(on: panel) == [.succeeded])
                #expect(recorder.isClear)
                #expect(recorder.finalFraction(label: "Radar") == 1.0)
                #expect(recorder.progress(label: "Radar").last?.completed == 1_048_576)
                #expect(recorder.transferOutcomes(label: "Radar") == [.succeeded])
            }
        }

        @Test func anUploadIsCounted() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client that shows every operation
                let call = try OpenAPICall(
                    serverURL: server.baseURL, transport: OpenAPITransport(curl), middlewares: [feedback()])

                // When a body of 256 KiB is posted
                let (head, _) = try await call.json(
                    .post, "/upload", body: HTTPBody([UInt8](repeating: 7, count: 256 << 10)))

                // Then the bar counted the upload to its end, then the answer
                #expect(head.status == .ok)
                let uploaded = recorder.progress(label: "Radar").filter { $0.total == 256 << 10 }
                #expect(uploaded.last?.completed == 256 << 10)
                #expect(recorder.transferOutcomes(label: "Radar") == [.succeeded])
                #expect(recorder.maskOutcomes(on: panel) == [.succeeded])
            }
        }

        @Test func anOperationNotShownPassesUntouched() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client that shows the radar operation only
                let call = try OpenAPICall(
                    serverURL: server.baseURL, transport: OpenAPITransport(curl),
                    middlewares: [feedback(operations: ["getRadar"])])

                // When another operation runs
                _ = try await call.json(.get, "/sysTime")

                // Then nothing was shown
                #expect(recorder.events.isEmpty)
            }
        }

        @Test func aFailedOperationEndsItsMaskAsFailed() async throws {
            // Given a client that shows every operation, on a server that listens nowhere
            let curl = try CurlTransport()
            let call = try OpenAPICall(
                serverURL: "http://127.0.0.1:1", transport: OpenAPITransport(curl), middlewares: [feedback()])

            // When an operation runs
            do {
                _ = try await call.send(.get, "/sysTime")
                Issue.record("the operation succeeded")
            } catch {}
            await curl.shutdown()

            // Then the mask and the bar ended as failed
            #expect(recorder.maskOutcomes(on: panel) == [.failed])
            #expect(recorder.transferOutcomes(label: "Radar") == [.failed])
            #expect(recorder.isClear)
        }
    }
#endif
