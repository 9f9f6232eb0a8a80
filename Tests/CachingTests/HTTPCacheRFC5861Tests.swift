import Caching
import Foundation
import HTTPTypes
import MockBackend
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

/// The corners of RFC 9111 and RFC 5861 against the mock server's `/cache` route: stale
/// answers while revalidating and instead of failures, several variants of one URL, a `HEAD`
/// updating the stored `GET`, the fields `Connection` names, and an `Expires` with stray spaces.
@Suite struct HTTPCacheRFC5861Tests {
    typealias Setup = HTTPCacheAgainstServerTests.Setup

    // MARK: - stale-while-revalidate

    @Test func aStaleEntryInItsWindowAnswersAtOnceAndIsRevalidatedInTheBackground() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl) { $0.backgroundTransport = curl }
            let url = server.url("/cache?key=swr&max-age=60&stale-while-revalidate=600&etag=s")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 61)
            let stale = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(stale.head) == .stale)
            #expect(stale.status == .ok)
            #expect(try servedCount(stale) == 1)
            await setup.cache.backgroundRevalidationsFinished()
            let requests = server.receivedRequests()
            #expect(requests.count == 2)
            #expect(requests.last?.values(forHeader: "If-None-Match") == ["\"s\""])
            // The revalidation's 304 refreshed the stored entry.
            #expect(await setup.cache.statistics.revalidations == 1)
        }
    }

    @Test func oneBackgroundRevalidationAtATimePerEntry() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl) { $0.backgroundTransport = curl }
            let url = server.url(
                "/cache?key=swr-once&max-age=60&stale-while-revalidate=600&etag=o&revalidate-delay=500")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 61)
            for _ in 0..<5 {
                #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .stale)
            }
            await setup.cache.backgroundRevalidationsFinished()
            #expect(server.receivedRequests().count == 2)
        }
    }

    @Test func pastItsWindowOrWithoutABackgroundTransportTheEntryIsRevalidatedFirst() async throws {
        try await withServerAndTransport { server, curl in
            let url = server.url("/cache?key=swr-late&max-age=60&stale-while-revalidate=30&etag=l")
            let setup = Setup(curl) { $0.backgroundTransport = curl }
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 100)
            #expect(CacheStatus(try await setup.transport.data(for: try get(url)).head) == .revalidated)

            let foreground = Setup(curl)
            let other = server.url("/cache?key=swr-foreground&max-age=60&stale-while-revalidate=600&etag=f")
            _ = try await foreground.transport.data(for: try get(other))
            foreground.clock.advance(by: 61)
            #expect(CacheStatus(try await foreground.transport.data(for: try get(other)).head) == .revalidated)
        }
    }

    // MARK: - stale-if-error

    @Test func aStaleEntryInItsErrorWindowAnswersInsteadOfA5xx() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=sie&max-age=60&stale-if-error=600&etag=e&fail-after=1")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 61)
            let stale = try await setup.transport.data(for: try get(url))
            #expect(stale.status == .ok)
            #expect(CacheStatus(stale.head) == .stale)
            #expect(try servedCount(stale) == 1)
            // Past the window, the failure goes through.
            setup.clock.advance(by: 700)
            let failed = try await setup.transport.data(for: try get(url))
            #expect(failed.status == .serviceUnavailable)
            #expect(CacheStatus(failed.head) == .miss)
        }
    }

    @Test func mustRevalidateOrNoWindowLetsTheFailureThrough() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let strict = server.url(
                "/cache?key=sie-strict&max-age=60&stale-if-error=600&must-revalidate=1&etag=m&fail-after=1")
            let plain = server.url("/cache?key=sie-none&max-age=60&etag=n&fail-after=1")
            _ = try await setup.transport.data(for: try get(strict))
            _ = try await setup.transport.data(for: try get(plain))
            setup.clock.advance(by: 61)
            #expect(try await setup.transport.data(for: try get(strict)).status == .serviceUnavailable)
            #expect(try await setup.transport.data(for: try get(plain)).status == .serviceUnavailable)
            // A request may ask for it itself.
            let asked = try await setup.transport.data(
                for: try get(plain, headers: ["Cache-Control": "stale-if-error=120"]))
            #expect(asked.status == .ok)
            #expect(CacheStatus(asked.head) == .stale)
        }
    }

    @Test func aNetworkFailureInTheErrorWindowIsAnsweredStaleButACancellationIsNot() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_316_400))
        let failure = PThreadMutex<(any Error)?>(nil)
        let stub = StubTransport { _ in
            if let error = failure.withLock({ $0 }) { throw error }
            return .init(headers: [.cacheControl: "max-age=60, stale-if-error=600"], body: Data("stored".utf8))
        }
        var options = HTTPCache.Options()
        options.clock = clock.read
        let cache = HTTPCache(options: options)
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let url = "https://example.com/sie"
        _ = try await transport.data(for: try get(url))
        clock.advance(by: 61)
        failure.withLock { $0 = TransportError(.connectionRefused, message: "refused") }
        let stale = try await transport.data(for: try get(url))
        #expect(CacheStatus(stale.head) == .stale)
        #expect(stale.body == Data("stored".utf8))
        failure.withLock { $0 = TransportError(.cancelled, message: "cancelled") }
        await #expect(throws: TransportError.self) { try await transport.data(for: try get(url)) }
    }

    // MARK: - Variants

    @Test func eachVariantOfAURLIsKept() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=variants&max-age=60&vary=Accept-Language")
            for language in ["fr", "de", "ja"] {
                let first = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": language]))
                #expect(CacheStatus(first.head) == .miss)
            }
            for language in ["ja", "fr", "de", "fr"] {
                let again = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": language]))
                #expect(CacheStatus(again.head) == .hit)
                #expect(try object(again.body)["vary"] as? [String: String] == ["accept-language": language])
            }
            #expect(server.receivedRequests().count == 3)
            #expect(await setup.cache.statistics.entryCount == 3)
            // An unsafe method forgets every variant.
            _ = try await setup.transport.data(for: try TransportRequest(method: .post, url: url))
            let after = try await setup.transport.data(for: try get(url, headers: ["Accept-Language": "de"]))
            #expect(CacheStatus(after.head) == .miss)
        }
    }

    @Test func variantsSurviveARestartOfADiskCache() async throws {
        try await withTemporaryFolder { folder in
            try await withServerAndTransport { server, curl in
                let url = server.url("/cache?key=disk-variants&max-age=600&vary=Accept-Language")
                let first = try DiskCacheStorage(directory: folder)
                let before = Setup(curl, storage: first)
                for language in ["fr", "de"] {
                    _ = try await before.transport.data(for: try get(url, headers: ["Accept-Language": language]))
                }
                await first.close()

                let second = try DiskCacheStorage(directory: folder)
                let after = Setup(curl, storage: second)
                for language in ["fr", "de"] {
                    let hit = try await after.transport.data(for: try get(url, headers: ["Accept-Language": language]))
                    #expect(CacheStatus(hit.head) == .hit)
                }
                await second.close()
                #expect(server.receivedRequests().count == 2)
            }
        }
    }

    // MARK: - HEAD, Connection, Expires

    @Test func aHeadWithTheSameValidatorsRefreshesTheStoredGet() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=head-update&max-age=60&etag=h")
            _ = try await setup.transport.data(for: try get(url))
            setup.clock.advance(by: 61)
            let head = try await setup.transport.data(for: try TransportRequest(method: .head, url: url))
            #expect(head.status == .ok)
            // The HEAD's fields (its X-Served among them) went into the stored GET, whose body is
            // still the first one.
            let stored = try #require(await setup.cache.cachedResponse(for: try get(url)))
            let body = try await stored.collected(upTo: 1 << 20).body
            #expect(try object(body)["served"] as? Int == 1)
            #expect(stored.head.headerFields[try #require(HTTPField.Name("X-Served"))] == "2")
            #expect(server.receivedRequests().count == 2)
        }
    }

    @Test func aHeadNamingAnotherVersionRemovesTheStoredGet() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=head-change&max-age=60&etag=c")
            _ = try await setup.transport.data(for: try get(url))
            // Another URL of the same resource moves its version on without invalidating ours.
            _ = try await setup.transport.data(
                for: try TransportRequest(method: .post, url: server.url("/cache?key=head-change")))
            setup.clock.advance(by: 61)
            _ = try await setup.transport.data(for: try TransportRequest(method: .head, url: url))
            #expect(await setup.cache.cachedResponse(for: try get(url)) == nil)
        }
    }

    @Test func fieldsConnectionNamesAreNeverStored() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let url = server.url("/cache?key=connection&max-age=60&connection=X-Hop")
            let miss = try await setup.transport.data(for: try get(url))
            let hop = try #require(HTTPField.Name("X-Hop"))
            #expect(miss.head.headerFields[hop] == "hop-by-hop")
            let hit = try await setup.transport.data(for: try get(url))
            #expect(CacheStatus(hit.head) == .hit)
            #expect(hit.head.headerFields[hop] == nil)
            #expect(hit.head.headerFields[.connection] == nil)
        }
    }

    @Test func anExpiresWithStraySpacesIsAlreadyExpired() async throws {
        try await withServerAndTransport { server, curl in
            let setup = Setup(curl)
            let good = httpDate(Date().addingTimeInterval(3600))
            let spaced = good.replacingOccurrences(of: ", ", with: ",  ")
            let valid = server.url("/cache?key=expires-good&expires=\(queryValue(good))")
            let invalid = server.url("/cache?key=expires-spaced&expires=\(queryValue(spaced))")
            _ = try await setup.transport.data(for: try get(valid))
            _ = try await setup.transport.data(for: try get(invalid))
            #expect(CacheStatus(try await setup.transport.data(for: try get(valid)).head) == .hit)
            #expect(CacheStatus(try await setup.transport.data(for: try get(invalid)).head) == .miss)
        }
    }
}
