import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

/// The canned routes of a feature module's mock backend (`Resources/Features/*.json`), from a
/// folder of the test's own: path patterns, query values, the most specific route, and the
/// server's message for an id the file does not list, all in the backend's envelope.
@Suite struct MockServerFeatureRouteTests {
    static let routes = """
        {"routes": [
          {"method": "GET", "path": "/gazette", "data": {"items": [{"id": 1}], "next_cursor": "2"}},
          {"method": "GET", "path": "/gazette", "query": {"cursor": "2"}, "data": {"items": [{"id": 2}]}},
          {"method": "GET", "path": "/gazette", "query": {"cursor": "3", "limit": "1"}, "data": {"items": []}},
          {"method": "GET", "path": "/gazette/1", "data": {"id": 1, "title": "First"}},
          {"method": "GET", "path": "/gazette/{id}", "code": 404, "message": "No item {id}", "data": {"asked": "{id}"}},
          {"method": "POST", "path": "/gazette/{id}/read", "status": 410, "code": 410, "message": "Gone", "data": null},
          {"method": "GET", "path": "/almanac", "query": {"q": "rain"}, "data": ["drizzle"]}
        ]}
        """

    /// The mock server with `routes` in a folder of feature routes, and an engine.
    static func withFeatureServer(_ body: (MockServer, CurlTransport) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feature-routes-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(routes.utf8).write(to: folder.appendingPathComponent("gazette.json"))
        var options = MockServer.Options()
        options.featureRoutes = [folder]
        try await MockServer.withRunning(options: options) { server in
            try await withTransport { transport in try await body(server, transport) }
        }
    }

    /// The envelope of `path`'s answer, and its HTTP status.
    static func envelope(
        _ path: String, method: HTTPRequest.Method = .get, server: MockServer, transport: CurlTransport
    ) async throws -> (status: Int, json: [String: Any]) {
        let response = try await transport.data(for: TransportRequest(method: method, url: server.url(path)))
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (response.status.code, try #require(json))
    }

    @Test func answersThePagesOfAListByTheirCursor() async throws {
        try await Self.withFeatureServer { server, transport in
            let first = try await Self.envelope("/gazette", server: server, transport: transport)
            let second = try await Self.envelope("/gazette?cursor=2&limit=10", server: server, transport: transport)
            let third = try await Self.envelope("/gazette?limit=1&cursor=3", server: server, transport: transport)

            #expect((first.json["data"] as? [String: Any])?["next_cursor"] as? String == "2")
            #expect(((second.json["data"] as? [String: Any])?["items"] as? [[String: Any]])?.first?["id"] as? Int == 2)
            #expect(((third.json["data"] as? [String: Any])?["items"] as? [Any])?.isEmpty == true)
            #expect(first.json["code"] as? Int == 200 && second.json["message"] as? String == "ok")
        }
    }

    @Test func prefersTheListedIDAndAnswersAnyOtherWithTheServersMessage() async throws {
        try await Self.withFeatureServer { server, transport in
            let listed = try await Self.envelope("/gazette/1", server: server, transport: transport)
            let unknown = try await Self.envelope("/gazette/42", server: server, transport: transport)

            #expect((listed.json["data"] as? [String: Any])?["title"] as? String == "First")
            #expect(unknown.status == 200)
            #expect(unknown.json["code"] as? Int == 404)
            #expect(unknown.json["message"] as? String == "No item 42")
            #expect((unknown.json["data"] as? [String: Any])?["asked"] as? String == "42")
        }
    }

    @Test func sendsTheRoutesHTTPStatusAndRefusesOtherMethods() async throws {
        try await Self.withFeatureServer { server, transport in
            let gone = try await Self.envelope("/gazette/7/read", method: .post, server: server, transport: transport)
            let refused = try await transport.data(
                for: TransportRequest(method: .delete, url: server.url("/gazette/1")))

            #expect(gone.status == 410)
            #expect(gone.json["message"] as? String == "Gone")
            #expect(refused.status.code == 405)
            #expect(refused.head.headerFields[.allow] == "GET")
        }
    }

    @Test func answersAQueryNoRouteAcceptsWith404InTheEnvelope() async throws {
        try await Self.withFeatureServer { server, transport in
            let found = try await Self.envelope("/almanac?q=rain", server: server, transport: transport)
            let missing = try await Self.envelope("/almanac?q=snow", server: server, transport: transport)

            #expect(found.json["data"] as? [String] == ["drizzle"])
            #expect(missing.status == 404)
            #expect(missing.json["code"] as? Int == 404)
            #expect(
                missing.json["message"] as? String
                    == "No canned answer for /almanac?q=snow: the routes of /almanac ask for q=rain")
        }
    }
}
