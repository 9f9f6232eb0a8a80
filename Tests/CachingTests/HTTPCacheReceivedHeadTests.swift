import Caching
import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport

/// A miss over a transport that hands back heads as an engine does (lines, built when first
/// read): the cache reads the fields it needs without building the head, marks the answer and
/// stores it all the same, and what it serves later is what a built head would give.
///
/// Checked to fail: with the miss reading `response.head` (as it did), the answer's and the
/// entry's heads are built before anyone reads them; with the mark left out of the field
/// appended to the head, `CacheStatus` of the answer is `nil`.
@Suite struct HTTPCacheReceivedHeadTests {
    private static let lines = [
        "Date: \(httpDate(Date()))", "Cache-Control: max-age=60", "ETag: \"v1\"", "Connection: close, X-Hop",
        "X-Hop: 1", "Content-Type: text/plain",
    ]

    @Test func aMissLeavesTheReceivedHeadUnbuiltAndIsMarked() async throws {
        let engine = ReceivedHeadTransport(lines: Self.lines)
        let cache = HTTPCache()
        let transport = MiddlewareTransport(engine, middleware: [cache])
        let url = "https://example.com/lazy"

        let miss = try await transport.send(try get(url))
        #expect(miss.lazyHead.received?.isBuilt == false)
        #expect(engine.made.allSatisfy { !$0.isBuilt })
        #expect(CacheStatus(miss.head) == .miss)
        #expect(miss.head.headerFields[values: CacheStatus.headerName] == ["miss"])
        #expect(miss.head.headerFields[.connection] == "close, X-Hop")
        for try await _ in miss.body {}

        let hit = try await transport.data(for: try get(url))
        #expect(CacheStatus(hit.head) == .hit)
        #expect(engine.made.count == 1)
        #expect(hit.body == Data("hello".utf8))
        #expect(hit.head.headerFields[.eTag] == "\"v1\"")
        // Left out of the stored head: hop-by-hop fields, those `Connection` names, the mark.
        #expect(hit.head.headerFields[.connection] == nil)
        #expect(hit.head.headerFields[try #require(HTTPField.Name("X-Hop"))] == nil)
        #expect(hit.head.headerFields[values: CacheStatus.headerName] == ["hit"])
        #expect(await cache.statistics.stores == 1)
    }

    @Test func anotherCachesMarkIsReplaced() async throws {
        let engine = ReceivedHeadTransport(lines: Self.lines + ["X-Parley-Cache: hit"])
        let transport = MiddlewareTransport(engine, middleware: [HTTPCache()])
        let miss = try await transport.data(for: try get("https://example.com/marked"))
        #expect(miss.head.headerFields[values: CacheStatus.headerName] == ["miss"])
    }

    @Test func anAnswerThatMayNotBeStoredIsMarkedAndNotStored() async throws {
        let engine = ReceivedHeadTransport(lines: ["Cache-Control: no-store", "ETag: \"v1\""])
        let cache = HTTPCache()
        let transport = MiddlewareTransport(engine, middleware: [cache])
        let url = "https://example.com/no-store"
        #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .miss)
        #expect(CacheStatus(try await transport.data(for: try get(url)).head) == .miss)
        #expect(engine.made.count == 2)
        #expect(await cache.statistics.stores == 0)
    }

    /// From a transport that keeps no reference to the heads it makes, as the engine keeps none
    /// once it hands a response over, the mark goes into the very head the transport made; the
    /// entry shares that head, and its head leaves the mark out, in memory and on disk; a hit
    /// carries one mark, its own.
    ///
    /// Checked to fail: with the mark always appended to a new head, the miss's head is not the
    /// one the transport made; with an entry's head keeping the mark, the stored head carries
    /// it; with a hit's mark appended beside the stored one, the hit carries two.
    @Test(arguments: ["memory", "disk"])
    func aHeadTheResponseAloneHoldsIsMarkedInPlace(storageKind: String) async throws {
        try await withTemporaryFolder { folder in
            let engine = ReceivedHeadTransport(lines: Self.lines, keepsHeads: false)
            let storage: any CacheStorage =
                storageKind == "disk" ? try DiskCacheStorage(directory: folder) : MemoryCacheStorage()
            let url = "https://example.com/in-place"

            let miss = try await MiddlewareTransport(engine, middleware: [HTTPCache(storage: storage)])
                .send(try get(url))
            let head = try #require(miss.lazyHead.received)
            #expect(engine.identities == [ObjectIdentifier(head)])
            // A disk storage's writer reads the head it writes, which may build it meanwhile.
            if storageKind == "memory" { #expect(!head.isBuilt) }
            #expect(miss.head.headerFields[values: CacheStatus.headerName] == ["miss"])
            for try await _ in miss.body {}

            await (storage as? DiskCacheStorage)?.close()
            let reader: any CacheStorage =
                storageKind == "disk" ? try DiskCacheStorage(directory: folder) : storage
            let stored = try #require(await reader.entry(forKey: url))
            #expect(stored.head.headerFields[CacheStatus.headerName] == nil)
            #expect(stored.head.headerFields[.eTag] == "\"v1\"")

            let hit = try await MiddlewareTransport(engine, middleware: [HTTPCache(storage: reader)])
                .data(for: try get(url))
            #expect(hit.head.headerFields[values: CacheStatus.headerName] == ["hit"])
            #expect(hit.head.headerFields[.age] != nil)
            #expect(engine.identities.count == 1)
        }
    }
}

/// A transport that answers every request with a `200`, `hello` and a head kept as received
/// lines, as the engine makes them. It notes which heads it made, and keeps each one unless it
/// hands them over as the engine does (`keepsHeads: false`).
private final class ReceivedHeadTransport: HTTPTransport {
    private let lines: [UInt8]
    private let keepsHeads: Bool
    private let heads = PThreadMutex<(kept: [ReceivedResponseHead], identities: [ObjectIdentifier])>(([], []))

    init(lines: [String], keepsHeads: Bool = true) {
        self.lines = Array(lines.map { $0 + "\n" }.joined().utf8)
        self.keepsHeads = keepsHeads
    }

    /// The heads made, when they are kept.
    var made: [ReceivedResponseHead] { heads.withLock { $0.kept } }
    /// Which heads were made, kept or not.
    var identities: [ObjectIdentifier] { heads.withLock { $0.identities } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let head = ReceivedResponseHead(status: 200, reason: "OK", lines: lines)
        heads.withLock { heads in
            heads.identities.append(ObjectIdentifier(head))
            if keepsHeads { heads.kept.append(head) }
        }
        return TransportResponse(receivedHead: head, body: ResponseBody(Data("hello".utf8)), url: request.url)
    }
}
