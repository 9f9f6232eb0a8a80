import Caching
import Foundation
import HTTPTypes
import Testing

/// The RFC 9111 §4.2 arithmetic, case by case.
@Suite struct FreshnessTests {
    /// One stored response: its fields (`{date±N}` stands for the HTTP date N seconds from the
    /// response's arrival), when the exchange happened, and what the cache should conclude.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fields: [(String, String)]
        var status = 200
        /// Seconds before the response arrived that the request was sent.
        var requestDelay: TimeInterval = 0
        /// Seconds after the response arrived that the cache looks.
        var residentTime: TimeInterval
        var forced: TimeInterval?
        var lifetime: TimeInterval
        var age: TimeInterval
        var source: Freshness.Source

        var testDescription: String { name }
        var isFresh: Bool { lifetime > age }
    }

    static let received = Date(timeIntervalSince1970: 1_795_316_400)

    static let cases: [Case] = [
        Case(
            name: "max-age, no Age", fields: [("Cache-Control", "max-age=60"), ("Date", "{date+0}")],
            residentTime: 30, lifetime: 60, age: 30, source: .maxAge),
        Case(
            name: "max-age with Age", fields: [("Cache-Control", "max-age=60"), ("Age", "50"), ("Date", "{date+0}")],
            residentTime: 11, lifetime: 60, age: 61, source: .maxAge),
        Case(
            name: "the response delay is added to Age",
            fields: [("Cache-Control", "max-age=60"), ("Age", "10"), ("Date", "{date+0}")], requestDelay: 3,
            residentTime: 0, lifetime: 60, age: 13, source: .maxAge),
        Case(
            name: "apparent age beats a smaller Age", fields: [("Cache-Control", "max-age=60"), ("Date", "{date-20}")],
            residentTime: 5, lifetime: 60, age: 25, source: .maxAge),
        Case(
            name: "a Date in the future is no negative age",
            fields: [("Cache-Control", "max-age=60"), ("Date", "{date+30}")], residentTime: 1, lifetime: 60, age: 1,
            source: .maxAge),
        Case(
            name: "a malformed Age is ignored", fields: [("Cache-Control", "max-age=60"), ("Age", "ten")],
            residentTime: 2, lifetime: 60, age: 2, source: .maxAge),
        Case(
            name: "a list Age uses its first member", fields: [("Cache-Control", "max-age=60"), ("Age", "7, 100")],
            residentTime: 0, lifetime: 60, age: 7, source: .maxAge),
        Case(
            name: "max-age wins over Expires",
            fields: [("Cache-Control", "max-age=5"), ("Expires", "{date+100}"), ("Date", "{date+0}")],
            residentTime: 0, lifetime: 5, age: 0, source: .maxAge),
        Case(
            name: "Expires minus Date", fields: [("Expires", "{date+100}"), ("Date", "{date-10}")],
            residentTime: 0, lifetime: 110, age: 10, source: .expires),
        Case(
            name: "Expires without Date uses the arrival", fields: [("Expires", "{date+100}")], residentTime: 0,
            lifetime: 100, age: 0, source: .expires),
        Case(
            name: "an Expires in the past", fields: [("Expires", "{date-100}"), ("Date", "{date+0}")],
            residentTime: 0, lifetime: 0, age: 0, source: .expires),
        Case(
            name: "an invalid Expires is stale", fields: [("Expires", "0"), ("Date", "{date+0}")], residentTime: 0,
            lifetime: 0, age: 0, source: .expires),
        Case(
            name: "an obsolete-form Expires is read",
            fields: [("Expires", "Sunday, 22-Nov-26 03:01:40 GMT"), ("Date", "{date+0}")], residentTime: 0,
            lifetime: 100, age: 0, source: .expires),
        Case(
            name: "s-maxage is a shared cache's", fields: [("Cache-Control", "s-maxage=600"), ("Date", "{date+0}")],
            residentTime: 0, lifetime: 0, age: 0, source: .none),
        Case(
            name: "conflicting max-age values are stale",
            fields: [("Cache-Control", "max-age=60"), ("Cache-Control", "max-age=120")], residentTime: 0, lifetime: 0,
            age: 0, source: .maxAge),
        Case(
            name: "the same max-age twice is fine", fields: [("Cache-Control", "max-age=60, max-age=60")],
            residentTime: 0, lifetime: 60, age: 0, source: .maxAge),
        Case(
            name: "a malformed max-age is stale", fields: [("Cache-Control", "max-age=\"ten\"")], residentTime: 0,
            lifetime: 0, age: 0, source: .maxAge),
        Case(
            name: "a quoted max-age is read", fields: [("Cache-Control", "max-age=\"30\"")], residentTime: 0,
            lifetime: 30, age: 0, source: .maxAge),
        Case(
            name: "heuristic: 10 % since Last-Modified",
            fields: [("Last-Modified", "{date-1000}"), ("Date", "{date+0}")], residentTime: 50, lifetime: 100, age: 50,
            source: .heuristic),
        Case(
            name: "heuristic is capped", fields: [("Last-Modified", "{date-31536000}"), ("Date", "{date+0}")],
            residentTime: 0, lifetime: 86400, age: 0, source: .heuristic),
        Case(
            name: "heuristic for a 404", fields: [("Last-Modified", "{date-1000}"), ("Date", "{date+0}")],
            status: 404, residentTime: 0, lifetime: 100, age: 0, source: .heuristic),
        Case(
            name: "no heuristic for a 302", fields: [("Last-Modified", "{date-1000}"), ("Date", "{date+0}")],
            status: 302, residentTime: 0, lifetime: 0, age: 0, source: .none),
        Case(
            name: "public allows a heuristic for a 302",
            fields: [("Cache-Control", "public"), ("Last-Modified", "{date-1000}"), ("Date", "{date+0}")],
            status: 302, residentTime: 0, lifetime: 100, age: 0, source: .heuristic),
        Case(
            name: "no heuristic with no-cache",
            fields: [("Cache-Control", "no-cache"), ("Last-Modified", "{date-1000}")], residentTime: 0, lifetime: 0,
            age: 0, source: .none),
        Case(
            name: "no heuristic from a Last-Modified after Date",
            fields: [("Last-Modified", "{date+1000}"), ("Date", "{date+0}")], residentTime: 0, lifetime: 0, age: 0,
            source: .none),
        Case(
            name: "nothing at all", fields: [], residentTime: 0, lifetime: 0, age: 0, source: .none),
        Case(
            name: "a forced lifetime for a 200", fields: [("Cache-Control", "no-cache")], residentTime: 20,
            forced: 60, lifetime: 60, age: 20, source: .forced),
        Case(
            name: "no forced lifetime for a 404", fields: [("Cache-Control", "max-age=5")], status: 404,
            residentTime: 0, forced: 60, lifetime: 5, age: 0, source: .maxAge),
    ]

    @Test(arguments: cases)
    func freshness(_ test: Case) throws {
        var fields = HTTPFields()
        for (name, value) in test.fields {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: Self.expand(value)))
        }
        let head = HTTPResponse(status: .init(code: test.status), headerFields: fields)
        let freshness = Freshness(
            head: head, requestTime: Self.received.addingTimeInterval(-test.requestDelay), responseTime: Self.received,
            now: Self.received.addingTimeInterval(test.residentTime), forcedLifetime: test.forced,
            heuristicCap: 86400)
        #expect(freshness.lifetime == test.lifetime)
        #expect(freshness.currentAge == test.age)
        #expect(freshness.source == test.source)
        #expect(freshness.isFresh == test.isFresh)
    }

    /// `{date±N}` as the HTTP date N seconds from ``received``.
    static func expand(_ value: String) -> String {
        guard value.hasPrefix("{date"), value.hasSuffix("}"), let offset = TimeInterval(value.dropFirst(5).dropLast())
        else { return value }
        return httpDate(received.addingTimeInterval(offset))
    }

    @Test(
        arguments: [
            ("max-age=60, must-revalidate", ["max-age": "60", "must-revalidate": nil]),
            ("No-Cache=\"Set-Cookie, Foo\", PRIVATE", ["no-cache": "Set-Cookie, Foo", "private": nil]),
            (" , max-stale ,, min-fresh=5 ", ["max-stale": nil, "min-fresh": "5"]),
            ("ext=\"a\\\"b\", public", ["ext": "a\"b", "public": nil]),
        ] as [(String, [String: String?])])
    func cacheControlIsParsedLeniently(_ value: String, _ expected: [String: String?]) {
        let control = CacheControl(parsing: value)
        #expect(control.directives.count == expected.count)
        for directive in control.directives {
            #expect(expected[directive.name] == .some(directive.argument))
        }
    }

    @Test func requestDirectivesAreRead() {
        #expect(CacheControl(parsing: "max-stale").maxStale == .some(nil))
        #expect(CacheControl(parsing: "max-stale=30").maxStale == .some(30))
        #expect(CacheControl(parsing: "max-stale=soon").maxStale == nil)
        #expect(CacheControl(parsing: "min-fresh=10").minFresh == 10)
        #expect(CacheControl(parsing: "max-age=99999999999999999999999").maxAge == .seconds(Int64.max))
        #expect(CacheControl(parsing: "max-age=-1").maxAge == .invalid)
        #expect(CacheControl(parsing: "max-age").maxAge == .invalid)
        #expect(CacheControl(parsing: "only-if-cached").onlyIfCached)
    }

    /// Found by the `cache-control` fuzz target: the value was split into grapheme clusters, so
    /// a comma or a space followed by a combining mark was no separator. `no-store,\u{301}…`
    /// hid `no-store` inside one long name, and a name kept a leading space.
    @Test func splitsAndTrimsByScalarsNotGraphemeClusters() {
        let control = CacheControl(parsing: "no-store,\u{301}max-age=5, \u{36D}x")
        #expect(control.noStore)
        #expect(control.directives.map(\.name) == ["no-store", "\u{301}max-age", "\u{36D}x"])
    }
}
