import Caching
import Foundation
import HTTPTypes
import MockBackend
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// The cache end to end: `CurlTransport` under a `MiddlewareTransport` holding an `HTTPCache`,
/// against the mock server's `/cache` route, whose request log proves what a hit did not send.
@Suite struct HTTPCacheAgainstServerTests {
    /// A cache on a manual clock, and a transport through it.
    ///
    /// The server's `Date` is the real time, so once a test has moved the clock on, a response
    /// stored afterwards looks as old as the move (its apparent age, RFC 9111 §4.2.3): such
    /// tests move the clock only after the last response they expect to be fresh. And the
    /// server's `Date` comes from a cache its event loop refreshes once a second, which a busy
    /// test run can hold back by seconds: so lifetimes here are minutes, never a few seconds,
    /// or a response could arrive looking older than its lifetime.
    struct Setup {
        let clock = ManualClock()
        let cache: HTTPCache
        let transport: MiddlewareTransport

        init(
            _ curl: CurlTransport, storage: any CacheStorage = MemoryCacheStorage(),
            configure: (inout HTTPCache.Options) -> Void = { _ in }
        ) {
            var options = HTTPCache.Options()
            options.clock = clock.read
            configure(&options)
            cache = HTTPCache(storage: storage, options: options)
            transport = MiddlewareTransport(curl, middleware: [cache])
        }
    }

    @Test func aFreshResponseIsAHitThatSendsNothing() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=hit&max-age=60")
            let first = try await setup.transport.data(for: try get(url))
            let second = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(first.head) == .miss)
            #expect(CacheStatus(second.head) == .hit)
            #expect(second.status == .ok)
            #expect(try servedCount(second) == 1)
            #expect(second.body == first.body)
            #expect(second.head.headerFields[.age] != nil)
            #expect(server.receivedRequests().count == 1)
            let statistics = await setup.cache.statistics
            #expect(statistics.hits == 1 && statistics.misses == 1 && statistics.stores == 1)
        }
    }

    @Test func aStaleEntryWithAnETagIsRevalidatedBy304() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=etag&max-age=60&etag=v1")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 61)
            let revalidated = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(revalidated.head) == .revalidated)
            #expect(revalidated.status == .ok)
            #expect(try servedCount(revalidated) == 1)
            let requests = server.receivedRequests()
            #expect(requests.count == 2)
            #expect(requests.last?.values(forHeader: "If-None-Match") == ["\"v1\""])
            #expect(await setup.cache.statistics.revalidations == 1)
        }
    }

    @Test func aStaleEntryWithLastModifiedSendsIfModifiedSince() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let lastModified = httpDate(Date().addingTimeInterval(-3600))
            let url = server.url("/cache?key=lm&max-age=600&last-modified=\(queryValue(lastModified))")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 601)
            let response = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(response.head) == .revalidated)
            #expect(server.receivedRequests().last?.values(forHeader: "If-Modified-Since") == [lastModified])
            #expect(server.receivedRequests().last?.values(forHeader: "If-None-Match") == [])
        }
    }

    @Test func aChangedResourceReplacesTheEntry() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=changed&max-age=60&etag=v1")
            _ = try await setup.transport.data(for: try get(url))
            // Changed behind the cache's back (sent without it).
            _ = try await curl.data(for: try TransportRequest(method: .put, url: url, body: .string("new")))
            let changed = try await setup.transport.data(for: try get(url, headers: ["Cache-Control": "no-cache"]))
            #expect(CacheStatus(changed.head) == .miss)
            #expect(try servedCount(changed) == 2)
            #expect(changed.head.headerFields[.eTag] == "\"v1-v1\"")
            let hit = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(hit.head) == .hit)
            #expect(try servedCount(hit) == 2)
        }
    }

    @Test func expiresAndAgeDecideFreshness() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let expires = httpDate(Date().addingTimeInterval(120))
            let byExpires = server.url("/cache?key=expires&expires=\(queryValue(expires))")
            _ = try await setup.transport.data(for: try get(byExpires))
            #expect(CacheStatus(try await setup.transport.data(for: try get(byExpires)).head) == .hit)
            setup.clock.advance(by: 122)
            #expect(CacheStatus(try await setup.transport.data(for: try get(byExpires)).head) == .miss)

            // Age: 50 of max-age=60 leaves about ten seconds.
            let aged = Setup(curl)
            let byAge = server.url("/cache?key=age&max-age=60&age=50")
            _ = try await aged.transport.data(for: try get(byAge))
            aged.clock.advance(by: 5)
            #expect(CacheStatus(try await aged.transport.data(for: try get(byAge)).head) == .hit)
            aged.clock.advance(by: 6)
            #expect(CacheStatus(try await aged.transport.data(for: try get(byAge)).head) == .miss)
        }
    }

    @Test func anInvalidExpiresIsAlreadyStale() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            // Without a validator it is not worth storing; with one it is revalidated at once.
            let plain = server.url("/cache?key=bad-expires&expires=0")
            _ = try await setup.transport.data(for: try get(plain))
            #expect(CacheStatus(try await setup.transport.data(for: try get(plain)).head) == .miss)
            let validated = server.url("/cache?key=bad-expires-etag&expires=never&etag=e")
            _ = try await setup.transport.data(for: try get(validated))
            #expect(CacheStatus(try await setup.transport.data(for: try get(validated)).head) == .revalidated)
            #expect(server.receivedRequests().count == 4)
        }
    }

    @Test func heuristicFreshnessComesFromLastModified() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let lastModified = httpDate(Date().addingTimeInterval(-10 * 86400))
            let url = server.url("/cache?key=heuristic&last-modified=\(queryValue(lastModified))")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 23 * 3600)
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .hit)
            // 10 % of ten days is a day, capped at 24 hours.
            setup.clock.advance(by: 2 * 3600)
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .revalidated)
            // A 302 is not heuristically cacheable.
            let redirect = server.url("/cache?key=heuristic-302&status=302&last-modified=\(queryValue(lastModified))")
            var request = try get(redirect)
            request.options.redirects = .follow(limit: 0)
            _ = try await setup.transport.data(for: request)
            #expect(CacheStatus(try await setup.transport.data(for: request).head) == .miss)
        }
    }

    @Test func noStoreIsNeverStoredWhicheverSideSaysIt() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl) { $0.forcedLifetime = .seconds(600) }
            let response = server.url("/cache?key=no-store&max-age=60&no-store=1")
            _ = try await setup.transport.data(for: try get(response))
            #expect(CacheStatus(try await setup.transport.data(for: try get(response)).head) == .miss)
            let request = server.url("/cache?key=no-store-request&max-age=60")
            _ = try await setup.transport.data(for: try get(request, headers: ["Cache-Control": "no-store"]))
            #expect(CacheStatus(try await setup.transport.data(for: try get(request)).head) == .miss)
            #expect(server.receivedRequests().count == 4)
            #expect(await setup.cache.statistics.stores == 1)
        }
    }

    @Test func noCacheIsStoredButAlwaysRevalidated() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=no-cache&no-cache=1&max-age=600&etag=n")
            _ = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .revalidated)
            // The request's own no-cache, and Pragma, on a fresh entry.
            let fresh = server.url("/cache?key=request-no-cache&max-age=600&etag=m")
            _ = try await setup.transport.data(for: try get(fresh))
            let noCache = try await setup.transport.data(for: try get(fresh, headers: ["Cache-Control": "no-cache"]))
            #expect(CacheStatus(noCache.head) == .revalidated)
            #expect(server.receivedRequests().last?.values(forHeader: "If-None-Match") == ["\"m\""])
            // The 304 refreshed the entry: without the request's no-cache, a hit again.
            #expect(CacheStatus(try await setup.transport.data(for: try get(fresh)).head) == .hit)
            let pragma = try await setup.transport.data(for: try get(fresh, headers: ["Pragma": "no-cache"]))
            #expect(CacheStatus(pragma.head) == .revalidated)
            // max-age=0 accepts an age of zero (RFC 9111 §5.2.1.1): one second on, it revalidates.
            setup.clock.advance(by: 1)
            let maxAgeZero = try await setup.transport.data(
                for: try get(fresh, headers: ["Cache-Control": "max-age=0"]))
            #expect(CacheStatus(maxAgeZero.head) == .revalidated)
        }
    }

    @Test func mustRevalidateRefusesAStaleAnswerThatMaxStaleWouldAllow() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let strict = server.url("/cache?key=strict&max-age=600&must-revalidate=1&etag=s")
            let lenient = server.url("/cache?key=lenient&max-age=600&etag=l")
            _ = try await setup.transport.data(for: try get(strict))
            _ = try await setup.transport.data(for: try get(lenient))
            setup.clock.advance(by: 620)
            let headers: KeyValuePairs<String, String> = ["Cache-Control": "max-stale=60"]
            #expect(
                CacheStatus(try await setup.transport.data(for: try get(strict, headers: headers)).head) == .revalidated
            )
            #expect(CacheStatus(try await setup.transport.data(for: try get(lenient, headers: headers)).head) == .hit)
        }
    }

    @Test func varyKeepsRequestsWithOtherHeadersApart() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=vary&max-age=60&vary=Accept-Language")
            let french = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": "fr"]))
            let frenchAgain = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": "fr"]))
            let german = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": "de"]))
            #expect(CacheStatus(french.head) == .miss)
            #expect(CacheStatus(frenchAgain.head) == .hit)
            #expect(CacheStatus(german.head) == .miss)
            #expect(try object(german.body)["vary"] as? [String: String] == ["accept-language": "de"])
            // The French variant is kept beside the German one.
            #expect(
                CacheStatus(try await setup.transport.data(for: try get(url, headers: ["Accept-Language": "fr"])).head)
                    == .hit)
            let none = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(none.head) == .miss)

            let star = server.url("/cache?key=vary-star&max-age=60&vary=*")
            _ = try await setup.transport.data(for: try get(star))
            #expect(CacheStatus(try await setup.transport.data(for: try get(star)).head) == .miss)
        }
    }

    @Test func aForcedLifetimeCachesAnAPIThatSendsNoCacheHeaders() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl) { $0.forcedLifetime = .seconds(60) }
            let url = server.url("/cache?key=forced")
            _ = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .hit)
            // It overrides the response's no-cache, never its no-store.
            let noCache = server.url("/cache?key=forced-no-cache&no-cache=1")
            _ = try await setup.transport.data(for: try get(noCache))
            #expect(CacheStatus(try await setup.transport.data(for: try get(noCache)).head) == .hit)
            setup.clock.advance(by: 61)
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .miss)
            // A request may turn it off.
            var off = try get(url)
            off.cacheLifetime = .zero
            #expect(CacheStatus(try await setup.transport.data(for: off).head) == .miss)
        }
    }

    @Test func aRequestMayAskForItsOwnLifetime() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            var request = try get(server.url("/cache?key=per-request"))
            request.cacheLifetime = .seconds(30)
            #expect(request.cacheLifetime == .seconds(30))
            _ = try await setup.transport.data(for: request)
            #expect(CacheStatus(try await setup.transport.data(for: request).head) == .hit)
            // Without the request's lifetime the same entry is stale: no validators, so a miss.
            #expect(CacheStatus(try await setup.transport.data(for: try get(request.url)).head) == .miss)
            #expect(server.receivedRequests().count == 2)
        }
    }

    @Test func responsesToAuthorizedRequestsAreStoredOnlyWhenTheySaySo() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let twice = { @Sendable (query: String) async throws -> CacheStatus? in
                let url = server.url("/cache?\(query)")
                let headers: KeyValuePairs<String, String> = ["Authorization": "Bearer t"]
                _ = try await setup.transport.data(for: try get(url, headers: headers))
                return CacheStatus(try await setup.transport.data(for: try get(url, headers: headers)).head)
            }
            var statuses: [CacheStatus?] = []
            for query in [
                "key=auth&max-age=60", "key=auth-private&max-age=60&private=1", "key=auth-public&max-age=60&public=1",
                "key=auth-must&max-age=60&must-revalidate=1", "key=auth-shared&max-age=60&s-maxage=60",
            ] {
                statuses.append(try await twice(query))
            }
            #expect(statuses == [.miss, .miss, .hit, .hit, .hit])
            setup.cache.options.cachesAuthorizedResponses = true
            let optedIn = try await twice("key=auth-opt-in&max-age=60")
            #expect(optedIn == .hit)
        }
    }

    @Test func unsafeMethodsInvalidateTheirURLAndContentLocation() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let item = server.url("/cache?key=item&max-age=60")
            let list = server.url("/cache?key=list&max-age=60")
            _ = try await setup.transport.data(for: try get(item))
            _ = try await setup.transport.data(for: try get(list))
            let post = try TransportRequest(method: .post, url: item, body: .string("change"))
            _ = try await setup.transport.data(for: post)
            #expect(CacheStatus(try await setup.transport.data(for: try get(item)).head) == .miss)
            #expect(CacheStatus(try await setup.transport.data(for: try get(list)).head) == .hit)
            // A DELETE whose Content-Location names the list (same origin) removes it too.
            let delete = try TransportRequest(
                method: .delete, url: server.url("/cache?key=other&content-location=\(queryValue(list))"))
            _ = try await setup.transport.data(for: delete)
            #expect(CacheStatus(try await setup.transport.data(for: try get(list)).head) == .miss)
        }
    }

    @Test func aServerErrorOnRevalidationIsReturnedAsItIs() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=failing&max-age=600&etag=f&revalidate-status=503")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 601)
            let failed = try await setup.transport.data(for: try get(url))
            #expect(failed.status == .serviceUnavailable)
            #expect(CacheStatus(failed.head) == .miss)
            // The entry is kept, and a "cache, then network" screen can still show it.
            let stale = try #require(await setup.cache.cachedResponse(for: try get(url)))
            #expect(CacheStatus(stale.head) == .stale)
        }
    }

    @Test func aResponseAfterARedirectIsNotStored() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let target = server.url("/cache?key=redirected&max-age=60")
            let url = server.url("/redirect-to?url=\(queryValue(target))")
            _ = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .miss)
            #expect(server.receivedRequests().count == 4)
        }
    }

    @Test func headIsAnsweredFromAStoredGet() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=head&max-age=60")
            _ = try await setup.transport.data(for: try get(url))
            let head = try await setup.transport.data(for: try TransportRequest(method: .head, url: url))
            #expect(CacheStatus(head.head) == .hit)
            #expect(head.body.isEmpty)
            #expect(server.receivedRequests().count == 1)
        }
    }

    @Test func onlyIfCachedAnswers504WithoutAnEntry() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=only&max-age=60")
            let headers: KeyValuePairs<String, String> = ["Cache-Control": "only-if-cached"]
            let empty = try await setup.transport.data(for: try get(url, headers: headers))
            #expect(empty.status == .gatewayTimeout)
            _ = try await setup.transport.data(for: try get(url))
            #expect(try await setup.transport.data(for: try get(url, headers: headers)).status == .ok)
            #expect(server.receivedRequests().count == 1)
        }
    }

    @Test func aStreamedResponseIsStoredOnceReadToItsEnd() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=streamed&max-age=60")
            let streamed = try await setup.transport.send(try get(url))
            #expect(CacheStatus(streamed.head) == .miss)
            var body = Data()
            for try await chunk in streamed.body { body.append(chunk) }
            let hit = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(hit.head) == .hit)
            #expect(hit.body == body)
            #expect(server.receivedRequests().count == 1)
        }
    }

    @Test func cachedResponseReadsWithoutSending() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=peek&max-age=600&etag=p")
            #expect(await setup.cache.cachedResponse(for: try get(url)) == nil)
            _ = try await setup.transport.data(for: try get(url))
            let fresh = try #require(await setup.cache.cachedResponse(for: try get(url)))
            #expect(CacheStatus(fresh.head) == .hit)
            setup.clock.advance(by: 601)
            let stale = try #require(await setup.cache.cachedResponse(for: try get(url)))
            #expect(CacheStatus(stale.head) == .stale)
            #expect(try await stale.body.collect(upTo: 1 << 20) == (try await fresh.body.collect(upTo: 1 << 20)))
            #expect(server.receivedRequests().count == 1)
        }
    }

    @Test func aDisabledCachePassesEverythingThrough() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl) { $0.isEnabled = false }
            let url = server.url("/cache?key=off&max-age=60")
            var request = try get(url)
            request.cacheLifetime = .seconds(60)
            _ = try await setup.transport.data(for: request)
            let second = try await setup.transport.data(for: request)
            #expect(CacheStatus(second.head) == nil)
            #expect(server.receivedRequests().count == 2)
            setup.cache.options.isEnabled = true
            _ = try await setup.transport.data(for: request)
            #expect(CacheStatus(try await setup.transport.data(for: request).head) == .hit)
        }
    }

    @Test func aDiskCacheAnswersAfterARestart() async throws {
        try await withTemporaryFolder { folder in
            try await withServerAndTransport { server, curl in
                let url = server.url("/cache?key=restart&max-age=600&etag=r")
                let first = try DiskCacheStorage(directory: folder)
                let before = Setup(curl, storage: first)
                let original = try await before.transport.data(for: try get(url))
                await first.close()

                let second = try DiskCacheStorage(directory: folder)
                let after = Setup(curl, storage: second)
                let hit = try await after.transport.data(for: try get(url))
                #expect(CacheStatus(hit.head) == .hit)
                #expect(hit.body == original.body)
                #expect(hit.head.headerFields[.eTag] == "\"r\"")
                #expect(server.receivedRequests().count == 1)
                await second.close()
            }
        }
    }
}
