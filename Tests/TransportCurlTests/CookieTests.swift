import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// The engine with a cookie jar, against the mock server's cookie routes and httpbin: cookies
/// set on any hop reach the next, go only where their domain, path and `Secure` flag allow,
/// expire, survive a file, merge with the caller's own `Cookie` field, and are shared safely by
/// requests on several loops.
@Suite struct CookieTests {
    /// `/cookies/respond` setting each of `lines` as a `Set-Cookie`, redirecting to `location` if given.
    static func respond(_ server: MockServer, set lines: [String], location: String? = nil) -> String {
        var query = lines.map { "set=\(encoded($0))" }
        if let location { query.append("location=\(encoded(location))") }
        return server.url("/cookies/respond?" + query.joined(separator: "&"))
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// The cookies a mock server's `/cookies` (or `/cookies/respond`) saw.
    static func cookiesSeen(_ response: DataResponse) throws -> [String: String] {
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        return try #require(object["cookies"] as? [String: String])
    }

    static func jarConfiguration(_ jar: CookieJar) -> CurlTransport.Configuration {
        .with { $0.cookieJar = jar }
    }

    @Test func aCookieSetByAResponseGoesWithTheNextRequest() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                _ = try await transport.data(for: TransportRequest(method: .get, url: server.url("/cookies/set?id=42")))
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/cookies")))
                #expect(try Self.cookiesSeen(response) == ["id": "42"])
                #expect(jar.cookies.map(\.name) == ["id"])
                #expect(jar.cookies.first?.domain == "127.0.0.1")
            }
        }
    }

    @Test func aCookieSetOnARedirectReachesTheNextHop() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                // Given a login that answers 302 with its session cookie
                let login = Self.respond(server, set: ["session=s1; Path=/; HttpOnly"], location: "/cookies")
                // When the engine follows it
                let response = try await transport.data(for: TransportRequest(method: .post, url: login))
                // Then the page it redirects to receives the cookie
                #expect(response.metrics?.redirectCount == 1)
                #expect(try Self.cookiesSeen(response) == ["session": "s1"])
            }
        }
    }

    @Test func aCookieIsNotSentToAnotherHost() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                // Given a cookie of 127.0.0.1 and a redirect to the same server named localhost
                let otherHost = "http://localhost:\(server.port)/cookies"
                let response = try await transport.data(
                    for: TransportRequest(
                        method: .get, url: Self.respond(server, set: ["id=1; Path=/"], location: otherHost)))
                // Then localhost receives no cookie, and 127.0.0.1 still does
                #expect(response.url == otherHost)
                #expect(try Self.cookiesSeen(response) == [:])
                let again = try await transport.data(for: TransportRequest(method: .get, url: server.url("/cookies")))
                #expect(try Self.cookiesSeen(again) == ["id": "1"])
            }
        }
    }

    @Test func aSecureCookieIsNotSentOverHTTPAndAPathLimitsWhereACookieGoes() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                let set = Self.respond(
                    server, set: ["secret=1; Secure; Path=/", "scoped=2; Path=/elsewhere", "plain=3"])
                _ = try await transport.data(for: TransportRequest(method: .get, url: set))
                #expect(Set(jar.cookies.map(\.name)) == ["secret", "scoped", "plain"])
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/cookies")))
                // `plain` has the default path of `/cookies/respond`, `/cookies`
                #expect(try Self.cookiesSeen(response) == ["plain": "3"])
            }
        }
    }

    @Test func anExpiredCookieDeletesTheStoredOneAndIsNotSent() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            jar.add(Cookie(name: "stale", value: "1", domain: "127.0.0.1", expiresAt: Date() - 60))
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                _ = try await transport.data(
                    for: TransportRequest(method: .get, url: Self.respond(server, set: ["a=1; Path=/", "b=2; Path=/"])))
                _ = try await transport.data(
                    for: TransportRequest(
                        method: .get,
                        url: Self.respond(
                            server, set: ["a=; Path=/; Max-Age=0", "b=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
                    ))
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/cookies")))
                #expect(try Self.cookiesSeen(response) == [:])
                #expect(jar.cookies.isEmpty)
            }
        }
    }

    @Test func theCallersCookieFieldIsKeptAndWinsOverTheJarsInOneField() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            jar.add(Cookie(name: "a", value: "jar", domain: "127.0.0.1"))
            jar.add(Cookie(name: "b", value: "jar", domain: "127.0.0.1"))
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/cookies"), headers: ["Cookie": "a=mine"]))
                #expect(try Self.cookiesSeen(response) == ["a": "mine", "b": "jar"])
                let fields = try #require(server.receivedRequests().last).headerFields[values: .cookie]
                #expect(fields == ["a=mine; b=jar"])
            }
        }
    }

    @Test func malformedAndForbiddenSetCookieFieldsAreIgnoredAndLogged() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            let log = LogCapture()
            let configuration = CurlTransport.Configuration.with {
                $0.cookieJar = jar
                $0.logger = log.logger(level: .debug)
            }
            try await withTransport(configuration) { transport in
                let url = Self.respond(
                    server, set: ["garbage", "=nameless", "x=1; Domain=example.com", "y=2; Domain=com", "ok=1; Path=/"])
                let response = try await transport.data(for: TransportRequest(method: .get, url: url))
                #expect(response.status == .ok)
                #expect(jar.cookies.map(\.name) == ["ok"])
            }
            let ignored = log.messages(at: .debug).filter { $0.contains("ignored") }
            #expect(ignored.count == 4)
            #expect(ignored.contains { $0.contains("cookie \"x\" from 127.0.0.1 ignored") })
        }
    }

    @Test func cookiesSurviveAFileAndSessionCookiesStayBehind() async throws {
        try await MockServer.withRunning { server in
            let folder = FileManager.default.temporaryDirectory.appending(path: "cookies-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appending(path: "cookies.txt")

            // Given a persistent and a session cookie, written to a file
            let jar = CookieJar()
            try await withTransport(Self.jarConfiguration(jar)) { transport in
                let set = Self.respond(server, set: ["kept=1; Path=/; Max-Age=3600", "session=2; Path=/"])
                _ = try await transport.data(for: TransportRequest(method: .get, url: set))
            }
            try jar.write(to: file)

            // When another transport starts from the file
            let restored = try CookieJar(contentsOf: file)
            try await withTransport(Self.jarConfiguration(restored)) { transport in
                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/cookies")))
                // Then it sends the persistent cookie only
                #expect(try Self.cookiesSeen(response) == ["kept": "1"])
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func requestsOnSeveralLoopsShareOneJar() async throws {
        try await MockServer.withRunning { server in
            let jar = CookieJar()
            let configuration = CurlTransport.Configuration.with {
                $0.cookieJar = jar
                $0.loopCount = 4
            }
            try await withTransport(configuration) { transport in
                // Given 400 requests at once over four loops, setting 40 cookies ten times each
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<400 {
                        group.addTask(executorPreference: transport.taskExecutor) {
                            let name = "c\(index % 40)"
                            let url = Self.respond(server, set: ["\(name)=\(index % 40); Path=/"])
                            let response = try await transport.data(for: TransportRequest(method: .get, url: url))
                            #expect(response.status == .ok)
                        }
                    }
                    try await group.waitForAll()
                }
                // Then the jar holds each once, and every request on every loop sends them all
                #expect(jar.cookies.count == 40)
                let expected = Dictionary(uniqueKeysWithValues: (0..<40).map { ("c\($0)", "\($0)") })
                try await withThrowingTaskGroup(of: [String: String].self) { group in
                    for _ in 0..<40 {
                        group.addTask(executorPreference: transport.taskExecutor) {
                            try Self.cookiesSeen(
                                try await transport.data(
                                    for: TransportRequest(method: .get, url: server.url("/cookies"))))
                        }
                    }
                    for try await seen in group { #expect(seen == expected) }
                }
            }
        }
    }
}

/// httpbin's `/cookies/set` answers 302 to `/cookies` with its `Set-Cookie`: a login redirect
/// from a server Parley does not control.
@Suite(.enabled(if: ExternalServers.httpbinAvailable, "httpbin is not running: use `make test`"))
struct HTTPBinCookieTests {
    @Test func httpbinsRedirectingSetCookieReachesItsCookiesPage() async throws {
        let base = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
        let jar = CookieJar()
        try await withTransport(.with { $0.cookieJar = jar }) { transport in
            let response = try await transport.data(
                for: TransportRequest(method: .get, url: base + "/cookies/set?flavour=oat&batch=7"))
            #expect(response.metrics?.redirectCount == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(object["cookies"] as? [String: String] == ["flavour": "oat", "batch": "7"])
            let deleted = try await transport.data(
                for: TransportRequest(method: .get, url: base + "/cookies/delete?flavour"))
            let after = try #require(try JSONSerialization.jsonObject(with: deleted.body) as? [String: Any])
            #expect(after["cookies"] as? [String: String] == ["batch": "7"])
        }
    }
}
