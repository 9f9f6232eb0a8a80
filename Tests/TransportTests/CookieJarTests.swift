import Foundation
import HTTPTypes
import Testing
import TransportTesting

@testable import Transport

/// The storage model of RFC 6265 as a table: a `Set-Cookie` field's attributes, domain and path
/// matching, expiry, the order of a `Cookie` field, the limits, and the Netscape cookie file.
@Suite struct CookieJarTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let site =
        CookieURL(scheme: "https", authority: "www.example.com:8443", path: "/account/login?next=%2F")
        ?? CookieURL(scheme: "http", authority: "invalid", path: "/")

    static func parse(_ line: String, from url: CookieURL? = site) -> Cookie? {
        guard let url else { return nil }
        return try? Cookie.parse(setCookie: line, from: url, now: now).get()
    }

    @Test func theSiteURLIsReadWithoutPortOrQuery() throws {
        let site = try #require(Self.site)
        #expect(site.host == "www.example.com" && site.path == "/account/login" && site.isSecure)
    }

    // MARK: - Attributes

    @Test func readsTheNameValuePairAndDefaultsToAHostOnlyCookieUnderTheDefaultPath() throws {
        let cookie = try #require(Self.parse(" id = a3fWa ; Unknown=1"))
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.domain == "www.example.com")
        #expect(cookie.isHostOnly)
        #expect(cookie.path == "/account")
        #expect(!cookie.isSecure && !cookie.isHTTPOnly && cookie.sameSite == nil)
        #expect(!cookie.isPersistent)
        #expect(cookie.createdAt == Self.now)
    }

    @Test func readsEveryAttributeInAnyCase() throws {
        let cookie = try #require(
            Self.parse("id=1; domain=.Example.COM; PATH=/api; secure; HTTPONLY; SameSite=lax; Max-Age=60"))
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(cookie.path == "/api")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.expiresAt == Self.now + 60)
    }

    @Test(arguments: [
        ("id=1; Max-Age=10; Expires=Wed, 09 Jun 2021 10:18:14 GMT", 1_800_000_010.0),
        ("id=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=10", 1_800_000_010.0),
        ("id=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894.0),
        ("id=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777.0),
        ("id=1; Expires=Sun Nov  6 08:49:37 1994", 784_111_777.0),
        ("id=1; Expires=6 nov 2030 8:49:37", 1_920_185_377.0),
        ("id=1; Max-Age=0", 0.0),
        ("id=1; Max-Age=-5", 0.0),
        ("id=1; Max-Age=999999999999999999999", 1_800_000_000.0 + Cookie.maximumLifetime),
    ])
    func maxAgeWinsOverExpiresAndDatesAreReadLeniently(line: String, expiry: Double) throws {
        let cookie = try #require(Self.parse(line))
        #expect(cookie.expiresAt == Date(timeIntervalSince1970: expiry))
    }

    @Test(arguments: [
        "id=1; Expires=tomorrow", "id=1; Max-Age=ten", "id=1; Max-Age=", "id=1; Expires=32 Jan 2030 0:0:0",
    ])
    func ignoresAnUnreadableExpiryAndKeepsASessionCookie(line: String) throws {
        #expect(try #require(Self.parse(line)).expiresAt == nil)
    }

    @Test(arguments: [
        ("no-equals-sign", "no \"=\""),
        ("=value", "name is empty"),
        ("id=a\u{1}b", "control character"),
        ("id=1; Domain=other.com", "does not match the host"),
        ("id=1; Domain=ample.com", "does not match the host"),
        ("id=1; Domain=com", "top-level domain"),
        ("id=" + String(repeating: "x", count: 4095), "exceed 4096 bytes"),
    ])
    func refusesMalformedAndForbiddenCookiesSayingWhy(line: String, reason: String) throws {
        let result = Cookie.parse(setCookie: line, from: try #require(Self.site), now: Self.now)
        guard case .failure(let rejection) = result else {
            Issue.record("\(line.prefix(40)) was accepted")
            return
        }
        #expect(rejection.reason.contains(reason))
        #expect(rejection.host == "www.example.com")
        #expect(!rejection.description.contains("a\u{1}b"))
    }

    @Test func acceptsACookieOfExactlyTheLimitAndASingleLabelDomainEqualToTheHost() throws {
        #expect(Self.parse("id=" + String(repeating: "x", count: 4094)) != nil)
        let local = try #require(CookieURL(scheme: "http", authority: "localhost:8080", path: "/"))
        let cookie = try #require(Self.parse("id=1; Domain=localhost", from: local))
        #expect(cookie.isHostOnly && cookie.domain == "localhost")
    }

    @Test func anIPAddressHostTakesOnlyItsOwnAddressAsDomain() throws {
        let ip = try #require(CookieURL(scheme: "http", authority: "127.0.0.1:80", path: "/"))
        #expect(Self.parse("id=1; Domain=0.0.1", from: ip) == nil)
        #expect(try #require(Self.parse("id=1; Domain=127.0.0.1", from: ip)).isHostOnly)
    }

    // MARK: - Matching

    @Test(arguments: [
        ("www.example.com", "example.com", true),
        ("example.com", "example.com", true),
        ("a.b.example.com", "example.com", true),
        ("badexample.com", "example.com", false),
        ("example.com", "www.example.com", false),
        ("10.0.0.1", "0.0.1", false),
    ])
    func domainMatching(host: String, domain: String, matches: Bool) {
        let isIP = host.first?.isNumber == true
        #expect(Cookie.domainMatches(host: host, isIPAddress: isIP, domain: domain) == matches)
    }

    @Test(arguments: [
        ("/", "/", true), ("/docs", "/", true), ("/docs", "/docs", true), ("/docs/a", "/docs", true),
        ("/docs/a", "/docs/", true), ("/docsearch", "/docs", false), ("/", "/docs", false),
        ("/Docs", "/docs", false),
    ])
    func pathMatching(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(Cookie.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == matches)
    }

    @Test(arguments: [("", "/"), ("/", "/"), ("/a", "/"), ("/a/b", "/a"), ("/a/b/", "/a/b"), ("a/b", "/")])
    func defaultPath(requestPath: String, expected: String) {
        #expect(Cookie.defaultPath(of: requestPath) == expected)
    }

    @Test func sendsHostOnlyCookiesToTheirHostAloneAndSecureOnesOverHTTPSOnly() throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "host", value: "1", domain: "example.com"))
        jar.add(Cookie(name: "domain", value: "2", domain: "example.com", isHostOnly: false))
        jar.add(Cookie(name: "secure", value: "3", domain: "example.com", isSecure: true))
        #expect(
            jar.cookieFieldValue(for: try #require(URL(string: "https://example.com/"))) == "host=1; domain=2; secure=3"
        )
        #expect(jar.cookieFieldValue(for: try #require(URL(string: "http://example.com/"))) == "host=1; domain=2")
        #expect(jar.cookieFieldValue(for: try #require(URL(string: "https://api.example.com/x"))) == "domain=2")
        #expect(jar.cookieFieldValue(for: try #require(URL(string: "https://example.org/"))) == nil)
    }

    // MARK: - Order, replacement, expiry

    @Test func ordersLongerPathsFirstThenEarlierCreation() throws {
        let jar = CookieJar()
        let url = try #require(CookieURL(scheme: "http", authority: "example.com", path: "/a/b/c"))
        jar.add(Cookie(name: "late", value: "1", domain: "example.com", path: "/", createdAt: Self.now + 2))
        jar.add(Cookie(name: "deep", value: "2", domain: "example.com", path: "/a/b", createdAt: Self.now + 3))
        jar.add(Cookie(name: "early", value: "3", domain: "example.com", path: "/", createdAt: Self.now + 1))
        jar.add(Cookie(name: "mid", value: "4", domain: "example.com", path: "/a", createdAt: Self.now))
        #expect(jar.fieldValue(for: url, now: Self.now) == "deep=2; mid=4; early=3; late=1")
    }

    @Test func aNewCookieReplacesItsSlotKeepingTheFirstCreationAndAnExpiredOneDeletesIt() throws {
        let jar = CookieJar()
        let url = try #require(Self.site)
        _ = jar.store(setCookie: ["a=1; Path=/", "b=1; Path=/"], from: url, now: Self.now)
        _ = jar.store(setCookie: ["a=2; Path=/"], from: url, now: Self.now + 5)
        #expect(jar.fieldValue(for: url, now: Self.now + 6) == "a=2; b=1")
        #expect(jar.cookies.first { $0.name == "a" }?.createdAt == Self.now)
        _ = jar.store(setCookie: ["a=; Path=/; Max-Age=0"], from: url, now: Self.now + 7)
        #expect(jar.fieldValue(for: url, now: Self.now + 8) == "b=1")
    }

    @Test func anExpiredCookieIsNeitherSentNorListed() throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "old", value: "1", domain: "example.com", expiresAt: Date() - 1))
        jar.add(Cookie(name: "new", value: "2", domain: "example.com", expiresAt: Date() + 3600))
        #expect(jar.cookies.map(\.name) == ["new"])
        #expect(jar.cookieFieldValue(for: try #require(URL(string: "http://example.com/"))) == "new=2")
        let url = try #require(CookieURL(scheme: "http", authority: "example.com", path: "/"))
        #expect(jar.fieldValue(for: url, now: Date() + 7200) == nil)
    }

    @Test func theCallersCookieNamesWin() throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "a", value: "jar", domain: "example.com"))
        jar.add(Cookie(name: "b", value: "jar", domain: "example.com"))
        let url = try #require(CookieURL(scheme: "http", authority: "example.com", path: "/"))
        #expect(jar.fieldValue(for: url, excluding: "a=mine; c=3") == "b=jar")
        #expect(jar.fieldValue(for: url, excluding: "a=mine; b=mine") == nil)
    }

    // MARK: - Limits

    @Test func keepsFiftyCookiesPerDomainDroppingTheLeastRecentlyUsed() throws {
        let jar = CookieJar()
        let url = try #require(CookieURL(scheme: "http", authority: "example.com", path: "/"))
        _ = jar.store(setCookie: (0..<50).map { "c\($0)=1" }, from: url, now: Self.now)
        // c0 is used after the others were stored: c1 is now the least recently used
        jar.add(Cookie(name: "c0", value: "2", domain: "example.com", createdAt: Self.now))
        _ = jar.store(setCookie: ["c50=1"], from: url, now: Self.now)
        let names = Set(jar.cookies.map(\.name))
        #expect(names.count == CookieJar.maximumCookiesPerDomain)
        #expect(names.contains("c0") && names.contains("c50") && !names.contains("c1"))
    }

    @Test func keepsThreeThousandCookiesInAll() throws {
        let jar = CookieJar()
        for host in 0..<61 {
            let url = try #require(CookieURL(scheme: "http", authority: "h\(host).example", path: "/"))
            _ = jar.store(setCookie: (0..<50).map { "c\($0)=1" }, from: url, now: Self.now)
        }
        let cookies = jar.cookies
        #expect(cookies.count == CookieJar.maximumCookies)
        #expect(!cookies.contains { $0.domain == "h0.example" && $0.name == "c0" })
        #expect(cookies.contains { $0.domain == "h60.example" && $0.name == "c49" })
    }

    // MARK: - Files

    @Test func aNetscapeFileRoundTripsPersistentCookiesAndSessionOnesOnlyWhenAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let expiry = Date(timeIntervalSince1970: (Date() + 3600).timeIntervalSince1970.rounded(.up))
        let jar = CookieJar()
        jar.add(Cookie(name: "session", value: "s", domain: "example.com"))
        jar.add(
            Cookie(
                name: "kept", value: "k=v", domain: "example.com", isHostOnly: false, path: "/api", isSecure: true,
                isHTTPOnly: true, expiresAt: expiry))
        let file = folder.appending(path: "cookies.txt")
        try jar.write(to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(
            text.contains("#HttpOnly_.example.com\tTRUE\t/api\tTRUE\t\(Int(expiry.timeIntervalSince1970))\tkept\tk=v"))
        #expect(!text.contains("session"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let loaded = try CookieJar(contentsOf: file).cookies
        #expect(loaded.count == 1)
        let kept = try #require(loaded.first)
        #expect(kept.name == "kept" && kept.value == "k=v" && kept.domain == "example.com" && !kept.isHostOnly)
        #expect(kept.path == "/api" && kept.isSecure && kept.isHTTPOnly && kept.expiresAt == expiry)

        try jar.write(to: file, includingSessionCookies: true)
        let both = try CookieJar(contentsOf: file).cookies
        #expect(both.map(\.name).sorted() == ["kept", "session"])
        #expect(both.first { $0.name == "session" }?.isPersistent == false)
    }

    @Test(arguments: [
        ("example.com\tFALSE\t/\tFALSE\t0\tname", 1, false),
        ("# comment\n\nexample.com\tTRUE\t/\n", 3, true),
        ("example.com\tMAYBE\t/\tFALSE\t0\tn\tv", 1, true),
        ("example.com\tFALSE\tnopath\tFALSE\t0\tn\tv", 1, true),
        ("example.com\tFALSE\t/\tFALSE\tsoon\tn\tv", 1, true),
        ("ok.com\tFALSE\t/\tFALSE\t0\tn\tv\n\tFALSE\t/\tFALSE\t0\tn\tv", 2, true),
        ("example.com\tFALSE\t/\tFALSE\t0\tn\tv\u{7F}", 1, true),
    ])
    func aCorruptFileIsATypedErrorNamingTheLine(text: String, line: Int, fails: Bool) throws {
        let result = Result { () throws(CookieFileError) in
            try CookieJar.parseNetscapeFile(text, path: "/tmp/cookies.txt", now: Self.now)
        }
        guard fails else {
            #expect(try result.get().map(\.value) == [""])
            return
        }
        guard case .failure(let error) = result else {
            Issue.record("\(text) was read")
            return
        }
        #expect(error.kind == .malformedLine)
        #expect(error.line == line)
        #expect(error.message.contains("Line \(line) of the cookie file /tmp/cookies.txt"))
    }

    @Test func aMissingFileIsATypedErrorAndLeavesTheJarAsItWas() throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "a", value: "1", domain: "example.com"))
        let error = #expect(throws: CookieFileError.self) {
            try jar.read(from: URL(filePath: "/nonexistent/cookies.txt"))
        }
        #expect(error?.kind == .unreadable)
        #expect(jar.cookies.count == 1)
        let unwritable = #expect(throws: CookieFileError.self) {
            try jar.write(to: URL(filePath: "/nonexistent/cookies.txt"), includingSessionCookies: true)
        }
        #expect(unwritable?.kind == .unwritable)
    }

    @Test func aCookiesDescriptionNeverShowsItsValue() {
        let cookie = Cookie(name: "session", value: "s3cr3t", domain: "example.com", isSecure: true)
        #expect(!cookie.description.contains("s3cr3t"))
        #expect(cookie.description.contains("session=<redacted>"))
    }
}

/// The jar as a middleware over a transport without one of its own.
@Suite struct CookieMiddlewareTests {
    @Test func addsTheJarsCookiesAfterTheCallersAndStoresTheResponsesCookies() async throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "a", value: "jar", domain: "example.com"))
        jar.add(Cookie(name: "b", value: "jar", domain: "example.com"))
        let stub = StubTransport { _ in
            var fields = HTTPFields()
            fields.append(HTTPField(name: .setCookie, value: "c=new; Path=/"))
            fields.append(HTTPField(name: .setCookie, value: "d=1; Domain=elsewhere.org"))
            return StubTransport.Reply(headers: fields)
        }
        let transport = MiddlewareTransport(stub, middleware: [CookieMiddleware(jar: jar)])
        _ = try await transport.data(
            for: TransportRequest(method: .get, url: "https://example.com/x", headers: ["Cookie": "a=mine"]))
        #expect(stub.requests.first?.head.headerFields[.cookie] == "a=mine; b=jar")
        #expect(jar.cookies.map(\.name).sorted() == ["a", "b", "c"])
        _ = try await transport.data(for: TransportRequest(method: .get, url: "https://example.com/"))
        #expect(stub.requests.last?.head.headerFields[.cookie] == "a=jar; b=jar; c=new")
    }
}
