#if OpenAPI
    import Foundation
    import HTTPTypes
    import MockBackend
    import OpenAPIRuntime
    import ParleyOpenAPI
    import ServerTestSupport
    import Testing
    import Transport

    /// Each method and body kind of the weather API's operations, through swift-openapi-runtime's
    /// client and the transport, against the mock server.
    @Suite struct OpenAPITransportTests {
        @Test func getOperationsDecodeTheirJSON() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))

                // When the GET operations of the weather API run
                let (forecastHead, forecast) = try await call.json(.get, "/weather?city=Toronto")
                let (citiesHead, cities) = try await call.json(.get, "/weather/cities?limit=2")
                let (timeHead, time) = try await call.json(.get, "/sysTime")

                // Then each answers its JSON, with the query passed on
                #expect(forecastHead.status == .ok && citiesHead.status == .ok && timeHead.status == .ok)
                let forecastData = try #require(forecast["data"] as? [String: Any])
                #expect(forecastData["location"] as? String == "Toronto, Canada")
                let citiesData = try #require(cities["data"] as? [String: Any])
                #expect((citiesData["items"] as? [Any])?.count == 2)
                let timeData = try #require(time["data"] as? [String: Any])
                #expect((timeData["time"] as? Int ?? 0) > 0)
            }
        }

        @Test func aPostSendsItsHeadersAndJSONBody() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))

                // When the version check posts a JSON body with a header of its own
                let (head, answer) = try await call.json(
                    .post, "/sysVersion",
                    headers: [.contentType: "application/json", HTTPField.Name("platform")!: "ios"],
                    body: HTTPBody(#"{"appVersion": "1.2.0"}"#)
                )

                // Then the server read both: the releases newer than 1.2.0 for iOS
                #expect(head.status == .ok)
                #expect(answer["code"] as? Int == 200)
                let releases = try #require(answer["data"] as? [[String: Any]])
                #expect(releases.compactMap { $0["version"] as? String } == ["2.1.0", "2.0.0", "1.2.1"])
            }
        }

        @Test func aBinaryBodyStreamsWithItsLength() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))

                // When the radar image of 8 MiB is read
                let (head, body) = try await call.send(.get, "/weather/radar?city=Toronto&size=8388608")
                let image = try #require(body)
                var chunks = 0
                var count = 0
                for try await chunk in image {
                    chunks += 1
                    count += chunk.count
                }

                // Then it arrived whole, in several chunks, with its Content-Length as the length
                #expect(head.status == .ok)
                #expect(image.length == .known(8_388_608))
                #expect(count == 8_388_608)
                #expect(chunks > 1)
            }
        }

        @Test func responsesWithoutABodyHaveNone() async throws {
            try await withServerAndTransport { server, curl in
                // Given a client on the engine
                let call = try OpenAPICall(serverURL: server.baseURL, transport: OpenAPITransport(curl))

                // When a HEAD and a 204 are answered
                let (headHead, headBody) = try await call.send(.head, "/weather/radar?city=Toronto")
                let (emptyHead, emptyBody) = try await call.send(.get, "/status/204")

                // Then neither has a body
                #expect(headHead.status == .ok && headBody == nil)
                #expect(emptyHead.status == .noContent && emptyBody == nil)
            }
        }

        @Test func theServerURLsPathPrefixesTheOperationsPath() async throws {
            try await withServerAndTransport { server, curl in
                // Given a server URL with a path, as `servers: - url: https://host/api` declares
                let call = try OpenAPICall(serverURL: server.url("/weather/"), transport: OpenAPITransport(curl))

                // When an operation with a path and a query runs
                let (head, cities) = try await call.json(.get, "/cities?limit=1")

                // Then the request went to the joined path, with the query
                #expect(head.status == .ok)
                #expect(server.receivedRequests().map(\.path) == ["/weather/cities?limit=1"])
                let data = try #require(cities["data"] as? [String: Any])
                #expect((data["items"] as? [Any])?.count == 1)
            }
        }
    }
#endif
