import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport

@testable import TransportCurl

/// The redirect rules as decision tables, without a server: status × method × body kind ×
/// origin change → the next hop or the error that ends the chain.
///
/// Checked to fail without each rule: with 301/302 keeping POST, the rows "a 301 turns POST
/// into GET" and "a 302 turns POST into GET" fail; with the origin compared without default
/// ports, "http with an explicit :80 is the same origin" fails; with the one-shot check
/// removed, every "refuses a one-shot body" row fails.
@Suite struct RedirectRulesTests {
    /// How the target of a hop relates to the request's origin, `http://api.example.com`.
    enum Target: Sendable, CustomStringConvertible {
        /// `http://api.example.com:80/next`: the same origin, its default port spelled out.
        case sameOrigin
        /// `http://cdn.example.com/next`.
        case otherHost
        /// `http://api.example.com:8080/next`.
        case otherPort
        /// `https://api.example.com/next`.
        case otherScheme

        /// The absolute URL libcurl would resolve the `Location` to.
        var url: String {
            switch self {
            case .sameOrigin: "http://api.example.com:80/next"
            case .otherHost: "http://cdn.example.com/next"
            case .otherPort: "http://api.example.com:8080/next"
            case .otherScheme: "https://api.example.com/next"
            }
        }

        /// Whether the target leaves the origin.
        var changesOrigin: Bool {
            if case .sameOrigin = self { false } else { true }
        }

        /// The case's name, for test names.
        var description: String {
            switch self {
            case .sameOrigin: "the same origin"
            case .otherHost: "another host"
            case .otherPort: "another port"
            case .otherScheme: "another scheme"
            }
        }
    }

    /// What a row expects.
    enum Expected: Sendable, Equatable {
        /// The hop is followed with this method, keeping the body or not.
        case follow(HTTPRequest.Method, keepsBody: Bool)
        /// The chain ends with an error of this category.
        case fail(TransportError.Category)
    }

    /// One row of the decision table.
    struct Row: Sendable, CustomTestStringConvertible {
        /// The redirect's status.
        let status: Int
        /// The redirected request's method.
        let method: HTTPRequest.Method
        /// The redirected request's body.
        let body: RedirectRules.BodyKind
        /// Where the redirect points.
        let target: Target
        /// The outcome.
        let expected: Expected
        /// What the row says, for the test's name.
        let testDescription: String

        /// A row named `name`.
        init(
            _ name: String, _ status: Int, _ method: HTTPRequest.Method, _ body: RedirectRules.BodyKind,
            to target: Target, _ expected: Expected
        ) {
            self.status = status
            self.method = method
            self.body = body
            self.target = target
            self.expected = expected
            testDescription = "\(name): \(status) to \(method) with \(body) to \(target)"
        }
    }

    static let rows: [Row] = [
        // 303: everything but HEAD becomes GET, and the body goes.
        Row("a 303 turns POST into GET", 303, .post, .replayable, to: .sameOrigin, .follow(.get, keepsBody: false)),
        Row("a 303 drops even a one-shot body", 303, .post, .oneShot, to: .otherHost, .follow(.get, keepsBody: false)),
        Row("a 303 turns PUT into GET", 303, .put, .replayable, to: .otherPort, .follow(.get, keepsBody: false)),
        Row("a 303 turns DELETE into GET", 303, .delete, .none, to: .otherScheme, .follow(.get, keepsBody: false)),
        Row("a 303 keeps GET", 303, .get, .none, to: .sameOrigin, .follow(.get, keepsBody: false)),
        Row("a 303 keeps HEAD", 303, .head, .none, to: .otherHost, .follow(.head, keepsBody: false)),
        // 301 and 302: only POST becomes GET.
        Row("a 301 turns POST into GET", 301, .post, .replayable, to: .sameOrigin, .follow(.get, keepsBody: false)),
        Row("a 301 drops a one-shot POST body", 301, .post, .oneShot, to: .otherHost, .follow(.get, keepsBody: false)),
        Row("a 301 turns a bodiless POST into GET", 301, .post, .none, to: .otherPort, .follow(.get, keepsBody: false)),
        Row("a 301 keeps PUT and its body", 301, .put, .replayable, to: .otherScheme, .follow(.put, keepsBody: true)),
        Row("a 301 refuses a one-shot PUT body", 301, .put, .oneShot, to: .sameOrigin, .fail(.invalidBody)),
        Row("a 301 keeps GET", 301, .get, .none, to: .otherHost, .follow(.get, keepsBody: false)),
        Row("a 301 keeps HEAD", 301, .head, .none, to: .sameOrigin, .follow(.head, keepsBody: false)),
        Row("a 302 turns POST into GET", 302, .post, .replayable, to: .otherHost, .follow(.get, keepsBody: false)),
        Row(
            "a 302 keeps PATCH and its body", 302, .patch, .replayable, to: .sameOrigin,
            .follow(.patch, keepsBody: true)),
        Row("a 302 refuses a one-shot PATCH body", 302, .patch, .oneShot, to: .otherPort, .fail(.invalidBody)),
        Row("a 302 keeps DELETE", 302, .delete, .none, to: .otherScheme, .follow(.delete, keepsBody: false)),
        Row("a 302 keeps GET", 302, .get, .none, to: .sameOrigin, .follow(.get, keepsBody: false)),
        // 307 and 308: method and body stay; the body must be replayable.
        Row("a 307 keeps POST and its body", 307, .post, .replayable, to: .sameOrigin, .follow(.post, keepsBody: true)),
        Row("a 307 refuses a one-shot POST body", 307, .post, .oneShot, to: .sameOrigin, .fail(.invalidBody)),
        Row("a 307 keeps a bodiless POST", 307, .post, .none, to: .otherHost, .follow(.post, keepsBody: false)),
        Row("a 307 keeps PUT and its body", 307, .put, .replayable, to: .otherPort, .follow(.put, keepsBody: true)),
        Row("a 307 keeps GET", 307, .get, .none, to: .otherScheme, .follow(.get, keepsBody: false)),
        Row("a 307 keeps HEAD", 307, .head, .none, to: .otherHost, .follow(.head, keepsBody: false)),
        Row(
            "a 308 keeps POST and its body", 308, .post, .replayable, to: .otherScheme, .follow(.post, keepsBody: true)),
        Row("a 308 refuses a one-shot POST body", 308, .post, .oneShot, to: .otherHost, .fail(.invalidBody)),
        Row("a 308 refuses a one-shot PUT body", 308, .put, .oneShot, to: .sameOrigin, .fail(.invalidBody)),
        Row("a 308 keeps DELETE", 308, .delete, .none, to: .otherPort, .follow(.delete, keepsBody: false)),
    ]

    /// The origin every row's request comes from.
    static let origin = RedirectRules.Origin(scheme: "http", authority: "api.example.com")

    @Test(arguments: rows)
    func decidesTheMethodTheBodyAndTheCredentialsOfEachHop(row: Row) throws {
        let rules = RedirectRules(limit: 10)
        let outcome = rules.decide(
            status: row.status, method: row.method, body: row.body, from: Self.origin, resolvedTarget: row.target.url,
            location: "/next", followed: 0, currentURL: "http://api.example.com/start")
        switch (outcome, row.expected) {
        case (.failure(let error), .fail(let category)):
            #expect(error.category == category)
            #expect(error.url == "http://api.example.com/start")
        case (.success(let hop), .follow(let method, let keepsBody)):
            #expect(hop.method == method)
            #expect(hop.keepsBody == keepsBody)
            #expect(hop.changesOrigin == row.target.changesOrigin)
            try expectRewrite(by: hop, of: row)
        default:
            Issue.record("expected \(row.expected), got \(outcome)")
        }
    }

    /// Applies `hop` to a request with credentials and a described body, and checks what is left.
    private func expectRewrite(by hop: RedirectRules.Hop, of row: Row) throws {
        var head = HTTPRequest(method: row.method, scheme: "http", authority: "api.example.com", path: "/start")
        head.headerFields[.authorization] = "Bearer secret"
        head.headerFields[.cookie] = "session=1"
        head.headerFields[.proxyAuthorization] = "Basic cHJveHk6c2VjcmV0"
        head.headerFields[try #require(HTTPField.Name("Host"))] = "api.example.com"
        head.headerFields[.accept] = "application/json"
        var body: RequestBody? = nil
        switch row.body {
        case .none: break
        case .replayable: body = .string("the body")
        case .oneShot: body = .stream(length: nil, oneShot: AsyncStream<Data> { $0.finish() })
        }
        if body != nil {
            head.headerFields[.contentType] = "text/plain"
            head.headerFields[.contentLength] = "8"
        }

        let stripped = hop.apply(to: &head, body: &body)

        #expect(head.method == hop.method)
        #expect("\(head.scheme ?? "")://\(head.authority ?? "")\(head.path ?? "")" == row.target.url)
        #expect((body != nil) == hop.keepsBody)
        #expect(head.headerFields[.accept] == "application/json")
        if hop.keepsBody {
            #expect(head.headerFields[.contentType] == "text/plain")
        } else {
            #expect(head.headerFields[.contentType] == nil)
            #expect(head.headerFields[.contentLength] == nil)
        }
        if row.target.changesOrigin {
            #expect(stripped == [.authorization, .cookie, .proxyAuthorization])
            #expect(head.headerFields[.authorization] == nil)
            #expect(head.headerFields[.cookie] == nil)
            #expect(head.headerFields[.proxyAuthorization] == nil)
            #expect(head.headerFields[try #require(HTTPField.Name("Host"))] == nil)
        } else {
            #expect(stripped.isEmpty)
            #expect(head.headerFields[.authorization] == "Bearer secret")
            #expect(head.headerFields[.cookie] == "session=1")
            #expect(head.headerFields[.proxyAuthorization] == "Basic cHJveHk6c2VjcmV0")
        }
    }

    @Test func reportsOnlyTheCredentialsTheRequestCarried() throws {
        let hop = try RedirectRules(limit: 10).decide(
            status: 302, method: .get, body: .none, from: Self.origin, resolvedTarget: "http://other.example.com/",
            location: nil, followed: 0, currentURL: "http://api.example.com/"
        ).get()
        var head = HTTPRequest(method: .get, scheme: "http", authority: "api.example.com", path: "/")
        head.headerFields[.cookie] = "session=1"
        var body: RequestBody? = nil
        #expect(hop.apply(to: &head, body: &body) == [.cookie])
    }

    /// Two URLs' origins, and whether a redirect from the first to the second changes origin.
    struct OriginCase: Sendable, CustomTestStringConvertible {
        /// The request's scheme.
        let scheme: String
        /// The request's authority.
        let authority: String
        /// The redirect's target.
        let target: String
        /// Whether the origin changes.
        let changes: Bool
        /// What the case says, for the test's name.
        let testDescription: String
    }

    static let origins: [OriginCase] = [
        OriginCase(
            scheme: "http", authority: "a.example", target: "http://a.example:80/", changes: false,
            testDescription: "http with an explicit :80 is the same origin"),
        OriginCase(
            scheme: "https", authority: "a.example:443", target: "https://a.example/", changes: false,
            testDescription: "https with an explicit :443 is the same origin"),
        OriginCase(
            scheme: "HTTP", authority: "A.Example", target: "http://a.example/", changes: false,
            testDescription: "case does not matter"),
        OriginCase(
            scheme: "http", authority: "[::1]", target: "http://[::1]:80/", changes: false,
            testDescription: "an IPv6 host gets its default port too"),
        OriginCase(
            scheme: "http", authority: "a.example", target: "https://a.example/", changes: true,
            testDescription: "http to https changes origin"),
        OriginCase(
            scheme: "http", authority: "a.example:443", target: "https://a.example/", changes: true,
            testDescription: "the scheme counts even on the same port"),
        OriginCase(
            scheme: "http", authority: "a.example", target: "http://b.example/", changes: true,
            testDescription: "another host changes origin"),
        OriginCase(
            scheme: "http", authority: "a.example:8080", target: "http://a.example:8081/", changes: true,
            testDescription: "another port changes origin"),
        OriginCase(
            scheme: "http", authority: "[::1]:8080", target: "http://[::2]:8080/", changes: true,
            testDescription: "another IPv6 host changes origin"),
    ]

    @Test(arguments: origins)
    func comparesOriginsWithDefaultPortsFilledIn(origin: OriginCase) throws {
        let hop = try RedirectRules(limit: 10).decide(
            status: 302, method: .get, body: .none,
            from: RedirectRules.Origin(scheme: origin.scheme, authority: origin.authority),
            resolvedTarget: origin.target, location: nil, followed: 0, currentURL: "http://start/"
        ).get()
        #expect(hop.changesOrigin == origin.changes)
    }

    @Test(arguments: [
        (nil, "ftp://127.0.0.1/file"), ("file:///etc/passwd", "file:///etc/passwd"),
        ("gopher://127.0.0.1/", "gopher://127.0.0.1/"), ("javascript:alert(1)", "javascript:alert(1)"),
    ])
    func refusesEveryTargetThatIsNotHTTPOrHTTPS(resolved: String?, location: String) {
        let outcome = RedirectRules(limit: 10).decide(
            status: 302, method: .get, body: .none, from: Self.origin, resolvedTarget: resolved, location: location,
            followed: 0, currentURL: "http://api.example.com/")
        #expect(outcome.failure?.category == .redirectToRefusedScheme)
    }

    @Test func reportsAnHTTPTargetWithoutAHostAsAnInvalidResponse() {
        let outcome = RedirectRules(limit: 10).decide(
            status: 302, method: .get, body: .none, from: Self.origin, resolvedTarget: "http:///path",
            location: "http:///path", followed: 0, currentURL: "http://api.example.com/")
        #expect(outcome.failure?.category == .invalidResponse)
    }

    @Test(arguments: [(10, 0, true), (10, 9, true), (10, 10, false), (1, 0, true), (1, 1, false)])
    func followsUpToTheLimitAndNoFurther(limit: Int, followed: Int, follows: Bool) {
        let outcome = RedirectRules(limit: limit).decide(
            status: 302, method: .get, body: .none, from: Self.origin, resolvedTarget: "http://api.example.com/next",
            location: "/next", followed: followed, currentURL: "http://api.example.com/")
        if follows {
            #expect(outcome.failure == nil)
        } else {
            #expect(outcome.failure?.category == .tooManyRedirects)
            #expect(outcome.failure?.message.contains("more than \(limit) times") == true)
        }
    }

    @Test(arguments: [
        (301, true, 10, true), (302, true, 10, true), (303, true, 10, true), (307, true, 10, true),
        (308, true, 10, true), (300, true, 10, false), (304, true, 10, false), (200, true, 10, false),
        (302, false, 10, false), (302, true, 0, false),
    ])
    func followsOnlyARedirectStatusWithALocationWhileFollowingIsOn(
        status: Int, hasLocation: Bool, limit: Int, follows: Bool
    ) {
        #expect(RedirectRules(limit: limit).follows(status: status, hasLocation: hasLocation) == follows)
    }
}
