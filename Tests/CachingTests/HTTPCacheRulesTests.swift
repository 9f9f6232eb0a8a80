import Caching
import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport
import TransportTesting

/// The cache's rules over `StubTransport`, where a test scripts each answer exactly: what a
/// `304` may change, which answers invalidate, damaged entries, and storage failures.
@Suite struct HTTPCacheRulesTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_795_316_400))

    func cache(_ storage: any CacheStorage = MemoryCacheStorage()) -> HTTPCache {
        var options = HTTPCache.Options()
        options.clock = clock.read
        return HTTPCache(storage: storage, options: options)
    }

    @Test func a304UpdatesTheStoredFieldsButNotTheFraming() async throws {
        let stub = StubTransport { request in
            guard request.head.headerFields[.ifNoneMatch] == "\"a\"" else {
                return .init(
                    headers: [
                        .cacheControl: "max-age=10", .eTag: "\"a\"", .contentLength: "5", .contentType: "text/plain",
                        .contentEncoding: "gzip",
                    ], body: Data("hello".utf8))
            }
            return .init(
                status: .notModified,
                headers: [.cacheControl: "max-age=100", .eTag: "W/\"a\"", .contentLength: "0", .contentEncoding: "br"])
        }
        let cache = cache()
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let url = "https://example.com/doc"
        _ = try await transport.data(for: try get(url))
        clock.advance(by: 11)
        let revalidated = try await transport.data(for: try get(url))
        #expect(CacheStatus(revalidated.head) == .revalidated)
        #expect(revalidated.status == .ok)
        #expect(revalidated.body == Data("hello".utf8))
        let fields = revalidated.head.headerFields
        #expect(fields[.cacheControl] == "max-age=100")
        #expect(fields[.eTag] == "W/\"a\"")
        #expect(fields[.contentLength] == "5")
        #expect(fields[.contentEncoding] == "gzip")
        #expect(fields[.contentType] == "text/plain")
        // Fresh for the new max-age.
        clock.advance(by: 50)
        #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .hit)
        #expect(stub.requests.count == 2)
    }

    @Test func a304ForAnotherVersionIsNotTrusted() async throws {
        let stub = StubTransport { request in
            if request.head.headerFields[.ifNoneMatch] != nil {
                return .init(status: .notModified, headers: [.eTag: "\"other\""])
            }
            return .init(headers: [.cacheControl: "max-age=10", .eTag: "\"mine\""], body: Data("body".utf8))
        }
        let transport = MiddlewareTransport(stub, middleware: [cache()])
        _ = try await transport.data(for: try get("https://example.com/v"))
        clock.advance(by: 11)
        let response = try await transport.data(for: try get("https://example.com/v"))
        #expect(CacheStatus(response.head) == .miss)
        #expect(response.status == .ok)
        #expect(stub.requests.count == 3)
        #expect(stub.requests.last?.head.headerFields[.ifNoneMatch] == nil)
    }

    @Test(arguments: [
        (HTTPRequest.Method.post, 200, true), (.put, 204, true), (.delete, 301, true), (.patch, 200, true),
        (.post, 404, false), (.post, 500, false), (.options, 200, false),
    ])
    func unsafeMethodsInvalidateOnlyWhenTheySucceed(method: HTTPRequest.Method, status: Int, invalidates: Bool)
        async throws
    {
        let stub = StubTransport { request in
            if request.head.method == .get {
                return .init(headers: [.cacheControl: "max-age=60"], body: Data("x".utf8))
            }
            return .init(status: .init(code: status))
        }
        let cache = cache()
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let url = "https://example.com/item"
        _ = try await transport.data(for: try get(url))
        var request = try TransportRequest(method: method, url: url)
        request.options.redirects = .follow(limit: 0)
        _ = try await transport.data(for: request)
        #expect((await cache.cachedResponse(for: try get(url)) == nil) == invalidates)
    }

    @Test func invalidationFollowsLocationOnlyWithinTheOrigin() async throws {
        let stub = StubTransport { request in
            switch request.head.method {
            case .get: .init(headers: [.cacheControl: "max-age=60"], body: Data(request.url.utf8))
            default:
                .init(
                    status: .created,
                    headers: [.location: "/items/7", .contentLocation: "https://elsewhere.example/items"])
            }
        }
        let cache = cache()
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let item = "https://example.com/items/7"
        let foreign = "https://elsewhere.example/items"
        _ = try await transport.data(for: try get(item))
        _ = try await transport.data(for: try get(foreign))
        _ = try await transport.data(for: try TransportRequest(method: .post, url: "https://example.com/items"))
        #expect(await cache.cachedResponse(for: try get(item)) == nil)
        #expect(await cache.cachedResponse(for: try get(foreign)) != nil)
    }

    @Test func aDamagedDiskEntryIsAMissAndCounted() async throws {
        try await withTemporaryFolder { folder in
            let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data("data".utf8)))
            let storage = try DiskCacheStorage(directory: folder)
            let cache = cache(storage)
            let transport = MiddlewareTransport(stub, middleware: [cache])
            let url = "https://example.com/damaged"
            _ = try await transport.data(for: try get(url))
            // The storage writes behind: the record is there once the writer is done.
            await storage.flush()
            let place = try #require(storage.recordLocation(forKey: url))
            try rewriteRecord(place) { bytes in
                bytes.replaceSubrange(
                    (bytes.startIndex + bytes.count / 2)..., with: Data(count: bytes.count - bytes.count / 2))
            }
            let response = try await transport.data(for: try get(url))
            #expect(CacheStatus(response.head) == .miss)
            #expect(response.body == Data("data".utf8))
            let statistics = await cache.statistics
            #expect(statistics.misses == 2 && statistics.hits == 0 && statistics.corruptEntriesRemoved == 1)
            // Stored again whole: the next request is a hit.
            #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .hit)
            #expect(stub.requests.count == 2)
        }
    }

    @Test func aStorageThatFailsNeverFailsTheRequest() async throws {
        let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data(count: 500)))
        let transport = MiddlewareTransport(stub, middleware: [cache(MemoryCacheStorage(maximumBytes: 100))])
        let response = try await transport.data(for: try get("https://example.com/big"))
        #expect(response.status == .ok && response.body.count == 500)
        #expect(CacheStatus(try await transport.data(for: try get("https://example.com/big")).head) == .miss)
    }

    @Test func rangesAndTheCallersOwnConditionalsPassThroughUnmarked() async throws {
        let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data("x".utf8)))
        let transport = MiddlewareTransport(stub, middleware: [cache()])
        let url = "https://example.com/r"
        _ = try await transport.data(for: try get(url))
        for headers: KeyValuePairs<String, String> in [["Range": "bytes=0-1"], ["If-None-Match": "\"x\""]] {
            let response = try await transport.data(for: try get(url, headers: headers))
            #expect(CacheStatus(response.head) == nil)
        }
        #expect(stub.requests.count == 3)
    }

    @Test func aBodyOverTheEntryLimitIsNotStored() async throws {
        let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data(count: 2000)))
        let cache = cache()
        cache.options.maximumEntrySize = 1000
        let transport = MiddlewareTransport(stub, middleware: [cache])
        _ = try await transport.data(for: try get("https://example.com/large"))
        #expect(CacheStatus(try await transport.data(for: try get("https://example.com/large")).head) == .miss)
        #expect(await cache.statistics.stores == 0)
    }

    /// A request made from a URL and one made from the same head share an entry, in either
    /// order: the key is the URL the engine sends, taken as the checked text the first carries
    /// and built from the parts for the second, whatever letter case the scheme was given in,
    /// without the fragment, with the path's `/`.
    ///
    /// Checked to fail: with a URL whose scheme is in capitals taken as already in its final
    /// form (so the request carries `HTTP://…`), neither second request hits.
    @Test(arguments: [
        ("https://example.com/k?a=1", "https", "example.com", "/k?a=1"),
        ("HTTPS://example.com/k#part", "https", "example.com", "/k"),
        ("HTTP://example.com/u", "http", "example.com", "/u"),
        ("http://example.com:8080", "http", "example.com:8080", "/"),
    ])
    func aRequestMadeFromAURLAndOneMadeFromItsHeadShareAnEntry(
        url: String, scheme: String, authority: String, path: String
    ) async throws {
        let fromHead = TransportRequest(
            head: HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path, headerFields: [:]))
        for urlFirst in [true, false] {
            let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data("k".utf8)))
            let transport = MiddlewareTransport(stub, middleware: [cache()])
            let (first, second) = urlFirst ? (try get(url), fromHead) : (fromHead, try get(url))
            #expect(CacheStatus(try await transport.data(for: first).head) == .miss)
            #expect(CacheStatus(try await transport.data(for: second).head) == .hit)
            #expect(stub.requests.count == 1)
        }
    }

    @Test func concurrentRequestsForOneURLAllGetAnAnswer() async throws {
        let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data("same".utf8)))
        let cache = cache()
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<32 {
                group.addTask { try await transport.data(for: try get("https://example.com/c")).body }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(bodies.count == 32 && bodies.allSatisfy { $0 == Data("same".utf8) })
        let statistics = await cache.statistics
        #expect(statistics.hits + statistics.misses == 32)
        #expect(stub.requests.count == statistics.misses)
    }

    // Checked to fail: with hop-by-hop fields kept when an entry's head is read, the stored heads
    // (memory and disk) and the hit carry `Connection`; with the mark appended without looking for
    // one already there, the miss carries two `X-Parley-Cache` fields.
    @Test(arguments: ["memory", "disk"])
    func aMissKeepsItsHopByHopFieldsAndIsMarkedButItsEntryHoldsNeither(storageKind: String) async throws {
        try await withTemporaryFolder { folder in
            let keepAlive = try #require(HTTPField.Name("Keep-Alive"))
            var fields: HTTPFields = [
                .cacheControl: "max-age=60", .connection: "keep-alive", .contentType: "application/json",
            ]
            fields[keepAlive] = "timeout=5"
            // Another cache on the way marked it already.
            fields[CacheStatus.headerName] = "hit"
            let stub = StubTransport(always: .init(headers: fields, body: Data("{}".utf8)))
            let storage: any CacheStorage =
                storageKind == "disk" ? try DiskCacheStorage(directory: folder) : MemoryCacheStorage()
            let transport = MiddlewareTransport(stub, middleware: [cache(storage)])
            let url = "https://example.com/hop"

            let miss = try await transport.data(for: try get(url))
            #expect(CacheStatus(miss.head) == .miss)
            #expect(miss.head.headerFields[values: CacheStatus.headerName] == ["miss"])
            #expect(miss.head.headerFields[.connection] == "keep-alive")
            #expect(miss.head.headerFields[keepAlive] == "timeout=5")

            await (storage as? DiskCacheStorage)?.close()
            let reader: any CacheStorage =
                storageKind == "disk" ? try DiskCacheStorage(directory: folder) : storage
            let stored = try #require(await reader.entry(forKey: url))
            for name in [HTTPField.Name.connection, keepAlive, CacheStatus.headerName] {
                #expect(stored.head.headerFields[name] == nil, "\(name) was stored")
            }
            #expect(stored.head.headerFields[.contentType] == "application/json")

            let hit = try await MiddlewareTransport(stub, middleware: [cache(reader)]).data(for: try get(url))
            #expect(CacheStatus(hit.head) == .hit)
            #expect(hit.head.headerFields[.connection] == nil && hit.head.headerFields[keepAlive] == nil)
            #expect(stub.requests.count == 1)
        }
    }

    // Checked to fail: with the cache taking `.unknown` for `.absent`, the second request is sent
    // again (the stored entry is never read); with `false` from `storeWithoutWaiting` taken as
    // stored, nothing is stored and the second request is sent again.
    @Test func aStorageWithOnlyTheAsyncCallsIsAskedThroughThem() async throws {
        let stub = StubTransport(always: .init(headers: [.cacheControl: "max-age=60"], body: Data("x".utf8)))
        let storage = AsyncOnlyStorage()
        let cache = cache(storage)
        let transport = MiddlewareTransport(stub, middleware: [cache])
        let url = "https://example.com/async"
        #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .miss)
        #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .hit)
        #expect(stub.requests.count == 1)
        #expect(storage.calls == ["entry", "store", "entry"])
        #expect(await cache.statistics.stores == 1)
    }
}

/// A storage that implements only the protocol's `async` requirements, around a memory storage,
/// recording which it was asked.
private final class AsyncOnlyStorage: CacheStorage {
    private let inner = MemoryCacheStorage()
    private let recorded = PThreadMutex<[String]>([])

    var calls: [String] { recorded.withLock { $0 } }

    func entry(forKey key: String) async -> CacheEntry? {
        recorded.withLock { $0.append("entry") }
        return await inner.entry(forKey: key)
    }

    func store(_ entry: CacheEntry) async throws {
        recorded.withLock { $0.append("store") }
        try await inner.store(entry)
    }

    func removeEntry(forKey key: String) async {
        recorded.withLock { $0.append("remove") }
        await inner.removeEntry(forKey: key)
    }

    func removeAll() async { await inner.removeAll() }

    func statistics() async -> CacheStorageStatistics { await inner.statistics() }
}
