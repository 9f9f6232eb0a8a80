import Foundation
import HTTPTypes
import Testing
import Transport

@Suite struct RequestValidationTests {
    @Test(arguments: [
        "http://example.com/a\r\nX-Injected: 1",
        "http://example.com/a\nb",
        "http://example.com/a\u{0}b",
        "http://example.com/a b",
        "http://exa\rmple.com/",
    ])
    func rejectsURLsWithControlCharactersOrSpaces(url: String) throws {
        let error = try #require(throws: TransportError.self) {
            try TransportRequest(method: .get, url: url)
        }
        #expect(error.category == .invalidURL)
        #expect(error.mayHaveReachedServer == false)
        #expect(error.message.contains("forbidden byte"))
    }

    @Test(arguments: [
        "ftp://example.com/file", "file:///etc/passwd", "example.com/path", "http://", "http://user:pw@host/",
    ])
    func rejectsNonHTTPOrIncompleteURLs(url: String) throws {
        let error = try #require(throws: TransportError.self) {
            try TransportRequest(method: .get, url: url)
        }
        #expect(error.category == .invalidURL)
    }

    @Test(arguments: [
        ("http://example.com", "http", "example.com", "/"),
        ("HTTPS://Example.com:8443/a/b?c=d#frag", "https", "Example.com:8443", "/a/b?c=d"),
        ("http://[::1]:8080?q=1", "http", "[::1]:8080", "/?q=1"),
    ])
    func splitsValidURLsIntoSchemeAuthorityAndPath(url: String, scheme: String, authority: String, path: String) throws
    {
        let parts = try RequestValidation.parseURL(url)
        #expect(parts == RequestValidation.URLParts(scheme: scheme, authority: authority, path: path))
    }

    /// A URL already in the form its parts make is kept as given; any other is rebuilt from them.
    @Test(arguments: [
        ("http://example.com/a?b=c", "http://example.com/a?b=c"),
        ("HTTP://example.com/a", "http://example.com/a"),
        ("hTtPs://example.com/a", "https://example.com/a"),
        ("http://example.com/a#frag", "http://example.com/a"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com?q=1", "http://example.com/?q=1"),
    ])
    func theRequestURLIsTheTextItsPartsMake(url: String, expected: String) throws {
        let request = try TransportRequest(method: .get, url: url)
        #expect(request.url == expected)
        #expect(try RequestValidation.validate(request.head) == expected)
    }

    @Test(arguments: [
        ("X-Evil", "a\r\nInjected: yes"), ("X-Evil", "a\nb"), ("X-Evil", "nul\u{0}"), ("Bad Name", "v"), ("", "v"),
    ])
    func rejectsHeaderInjection(name: String, value: String) throws {
        let error = try #require(throws: TransportError.self) {
            try TransportRequest(method: .get, url: "http://example.com/", headers: [name: value])
        }
        #expect(error.category == .invalidHeader)
        #expect(error.mayHaveReachedServer == false)
    }

    @Test func acceptsTabsAndUnicodeInHeaderValues() throws {
        var request = try TransportRequest(method: .get, url: "http://example.com/", headers: ["X-Note": "a\tb"])
        try request.setHeader("X-City", "Zürich")
        #expect(request.head.headerFields[HTTPField.Name("X-City")!] == "Zürich")
        #expect(request.head.headerFields[HTTPField.Name("X-Note")!] == "a\tb")
    }

    @Test func validateRejectsARawHeadWhosePathHoldsASpace() throws {
        // swift-http-types turns CR and LF into spaces; the engine must still refuse to send them.
        let head = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/a\r\nHost: evil")
        let error = try #require(throws: TransportError.self) { try RequestValidation.validate(head) }
        #expect(error.category == .invalidURL)
    }
}
