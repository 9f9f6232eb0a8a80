import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

@Suite struct RedirectTests {
    @Test func followsUpToTheLimitOfTen() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let events = LockedRecorder<TransferEvent>()
                var request = try TransportRequest(method: .get, url: server.url("/redirect/10"))
                request.options.eventHandler = events.handler
                let response = try await transport.data(for: request)
                #expect(response.status == .ok)
                #expect(response.url == server.url("/echo"))
                #expect(response.metrics?.redirectCount == 10)
                let redirects = events.all.compactMap { if case .redirect(let r) = $0 { r } else { nil } }
                #expect(redirects.count == 10)
            }
        }
    }

    @Test func failsWithTooManyRedirectsPastTheLimit() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/redirect/11")))
                }
                #expect(error?.category == .tooManyRedirects)
                #expect(error?.message.contains("more than 10 times") == true)
            }
        }
    }

    @Test func followsRelativeLocations() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/relative-redirect/3")))
                #expect(response.status == .ok)
                #expect(try Echo(response.body).path == "/echo")
            }
        }
    }

    @Test func returnsTheRedirectItselfWhenFollowingIsOff() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/redirect/2"))
                request.options.redirects = .none
                let response = try await transport.data(for: request)
                #expect(response.status == .found)
                #expect(response.head.headerFields[.location] != nil)
            }
        }
    }

    @Test(arguments: [
        (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
        (303, "PUT", "GET", false), (307, "POST", "POST", true), (308, "PUT", "PUT", true),
        (301, "PUT", "PUT", true), (302, "DELETE", "DELETE", false),
    ])
    func appliesTheMethodAndBodyRulesOfEachStatus(status: Int, method: String, expected: String, keepsBody: Bool)
        async throws
    {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let target = server.url("/echo").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let sendsBody = method != "DELETE"
                let request = try TransportRequest(
                    method: try #require(HTTPRequest.Method(method)),
                    url: server.url("/redirect-to?status=\(status)&url=\(target)"),
                    headers: ["Content-Type": "text/plain"],
                    body: sendsBody ? .string("the body") : nil)
                let echo = try Echo(try await transport.data(for: request).body)
                #expect(echo.method == expected)
                if keepsBody {
                    #expect(echo.body == "the body")
                    #expect(echo.header("Content-Type") == "text/plain")
                } else {
                    #expect(echo.bodyLength == 0)
                    if sendsBody { #expect(echo.header("Content-Type") == nil) }
                }
            }
        }
    }

    @Test func stripsCredentialsOnACrossOriginRedirectAndNeverRestoresThem() async throws {
        try await MockServer.withRunning { origin in
            try await MockServer.withRunning { other in
                try await withTransport { transport in
                    // Given a chain origin → other → origin
                    let back = origin.url("/echo").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    let hop =
                        other.url("/redirect-to?url=\(back)")
                        .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    let events = LockedRecorder<TransferEvent>()
                    var request = try TransportRequest(
                        method: .get, url: origin.url("/redirect-to?url=\(hop)"),
                        headers: [
                            "Authorization": "Bearer secret-token", "Cookie": "session=s3cr3t",
                            "Proxy-Authorization": "Basic cHJveHk=", "X-Keep": "kept",
                        ])
                    request.options.eventHandler = events.handler

                    // When it is followed
                    let response = try await transport.data(for: request)

                    // Then the other origin never saw the credentials, and the first origin did
                    // not get them back at the end of the chain
                    let echo = try Echo(response.body)
                    #expect(echo.header("Authorization") == nil)
                    #expect(echo.header("Cookie") == nil)
                    #expect(echo.header("Proxy-Authorization") == nil)
                    #expect(echo.header("X-Keep") == "kept")
                    for seen in other.receivedRequests() {
                        #expect(seen.values(forHeader: "Authorization").isEmpty)
                        #expect(seen.values(forHeader: "Cookie").isEmpty)
                        #expect(seen.values(forHeader: "Proxy-Authorization").isEmpty)
                    }
                    let first = try #require(origin.receivedRequests().first)
                    #expect(first.values(forHeader: "Authorization") == ["Bearer secret-token"])
                    let redirects = events.all.compactMap { if case .redirect(let r) = $0 { r } else { nil } }
                    #expect(redirects.first?.strippedHeaders == [.authorization, .cookie, .proxyAuthorization])
                }
            }
        }
    }

    @Test func keepsCredentialsOnASameOriginRedirect() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let request = try TransportRequest(
                    method: .get, url: server.url("/redirect/2"), headers: ["Authorization": "Bearer t"])
                let echo = try Echo(try await transport.data(for: request).body)
                #expect(echo.header("Authorization") == "Bearer t")
            }
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func refusesRedirectsToOtherSchemes(location: String) async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let target = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(
                        for: TransportRequest(method: .get, url: server.url("/redirect-to?url=\(target)")))
                }
                #expect(error?.category == .redirectToRefusedScheme)
            }
        }
    }

    @Test func refusesToReplayAOneShotBodyOnA307() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let target = server.url("/echo").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let once = AsyncStream<Data> { continuation in
                    continuation.yield(Data("only once".utf8))
                    continuation.finish()
                }
                let request = try TransportRequest(
                    method: .post, url: server.url("/redirect-to?status=307&url=\(target)"),
                    body: .stream(oneShot: once))
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .invalidBody)
                #expect(error?.message.contains("one-shot") == true)
            }
        }
    }

    @Test func replaysAReplayableStreamOnA308() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let target = server.url("/echo").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let request = try TransportRequest(
                    method: .post, url: server.url("/redirect-to?status=308&url=\(target)"),
                    body: .stream {
                        AsyncStream<Data> { continuation in
                            continuation.yield(Data("again ".utf8))
                            continuation.yield(Data("and again".utf8))
                            continuation.finish()
                        }
                    })
                let echo = try Echo(try await transport.data(for: request).body)
                #expect(echo.method == "POST")
                #expect(echo.body == "again and again")
            }
        }
    }
}
