import Caching
import Foundation
import HTTPTypes
import Testing
import Transport

/// A miss over a transport that hands back heads as an engine does (lines, built when first
/// read): the cache reads the fields it needs without building the head, marks the answer and
/// stores it all the same, and what it serves later is what a built head would give.
///
/// Checked to fail: with the miss reading `response.head` (as it did), the answer's and the
/// entry's heads are built before anyone reads them; with the mark left out of the head that
/// shares the lines, `CacheStatus` of the answer is `nil`.
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
}

/// A transport that answers every request with a `200`, `hello` and a head kept as received
/// lines, as the engine makes them, and keeps each head it made.
private final class ReceivedHeadTransport: HTTPTransport {
    private let lines: [UInt8]
    private let heads = PThreadMutex<[ReceivedResponseHead]>([])

    init(lines: [String]) {
        self.lines = Array(lines.map { $0 + "\n" }.joined().utf8)
    }

    var made: [ReceivedResponseHead] { heads.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let head = ReceivedResponseHead(status: 200, reason: "OK", lines: lines)
        heads.withLock { $0.append(head) }
        return TransportResponse(receivedHead: head, body: ResponseBody(Data("hello".utf8)), url: request.url)
    }
}
