import Caching
import Foundation
import Testing

/// The memory storage: least-recently-used eviction by size.
@Suite struct MemoryCacheStorageTests {
    @Test func evictionFollowsUseNotInsertion() async throws {
        let size = CacheEntry.sample(key: "https://example.com/a", body: Data(count: 1000)).approximateSize
        let storage = MemoryCacheStorage(maximumBytes: size * 3)
        for name in ["a", "b", "c"] {
            try await storage.store(.sample(key: "https://example.com/\(name)", body: Data(count: 1000)))
        }
        _ = await storage.entry(forKey: "https://example.com/a")
        try await storage.store(.sample(key: "https://example.com/d", body: Data(count: 1000)))
        #expect(await storage.entry(forKey: "https://example.com/b") == nil)
        for name in ["a", "c", "d"] { #expect(await storage.entry(forKey: "https://example.com/\(name)") != nil) }
        let statistics = await storage.statistics()
        #expect(statistics.evictions == 1 && statistics.entryCount == 3 && statistics.totalBytes == size * 3)
    }

    @Test func replacingAnEntryCountsItsSizeOnce() async throws {
        let storage = MemoryCacheStorage()
        try await storage.store(.sample(body: Data(count: 10)))
        try await storage.store(.sample(body: Data(count: 20)))
        #expect(await storage.statistics().totalBytes == CacheEntry.sample(body: Data(count: 20)).approximateSize)
        #expect(await storage.entry(forKey: CacheEntry.sample().key)?.body.count == 20)
    }

    @Test func anEntryLargerThanTheCapIsRefused() async throws {
        let storage = MemoryCacheStorage(maximumBytes: 100)
        await #expect(throws: CacheError.self) { try await storage.store(.sample(body: Data(count: 200))) }
        #expect(await storage.statistics().entryCount == 0)
    }

    // Checked to fail: with the synchronous lookup leaving the order of use alone, "b" is not the
    // one evicted.
    @Test func theCallsWithoutWaitingStoreReadAndOrderAsTheAsyncOnesDo() async throws {
        let size = CacheEntry.sample(key: "https://example.com/a", body: Data(count: 1000)).approximateSize
        let storage = MemoryCacheStorage(maximumBytes: size * 2)
        for name in ["a", "b"] {
            #expect(
                try storage.storeWithoutWaiting(.sample(key: "https://example.com/\(name)", body: Data(count: 1000))))
        }
        guard case .found(let entry) = storage.entryWithoutWaiting(forKey: "https://example.com/a") else {
            Issue.record("a was not found")
            return
        }
        #expect(entry.key == "https://example.com/a")
        #expect(try storage.storeWithoutWaiting(.sample(key: "https://example.com/c", body: Data(count: 1000))))
        guard case .absent = storage.entryWithoutWaiting(forKey: "https://example.com/b") else {
            Issue.record("b, the least recently used, was not evicted")
            return
        }
        #expect(throws: CacheError.self) { try storage.storeWithoutWaiting(.sample(body: Data(count: 5000))) }
    }
}
