import Caching
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// The disk storage on its own: the file format, the journal, restarts, damage, eviction, the
/// lock, and what a crash leaves behind.
@Suite struct DiskCacheStorageTests {
    @Test func anEntryComesBackAsItWasStored() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            var fields: HTTPFields = [.cacheControl: "max-age=60", .eTag: "\"x\""]
            fields.append(HTTPField(name: .setCookie, value: "a=1"))
            fields.append(HTTPField(name: .setCookie, value: "b=2"))
            let body = Data((0..<100_000).map { UInt8($0 % 7) })
            let entry = CacheEntry.sample(fields: fields, body: body)
            try await storage.store(entry)
            #expect(await storage.entry(forKey: entry.key) == entry)
            // Appended to the first segment as it is (compaction deflates it later), and counted.
            let place = try #require(storage.recordLocation(forKey: entry.key))
            #expect(place.offset == 0 && place.length > body.count)
            #expect(fileSize(place.path) == place.length)
            #expect(await storage.statistics().totalBytes == place.length)
        }
    }

    /// With and without flushing, whose writes take the storage's queue.
    @Test(arguments: [false, true])
    func anotherStorageOnTheSameDirectoryFindsTheEntriesAndTheirOrder(synchronizesToDisk: Bool) async throws {
        try await withTemporaryFolder { folder in
            let first = try DiskCacheStorage(directory: folder, synchronizesToDisk: synchronizesToDisk)
            for name in ["a", "b", "c"] {
                try await first.store(.sample(key: "https://example.com/\(name)", body: Data(repeating: 1, count: 10)))
            }
            // "a" becomes the most recently used.
            _ = await first.entry(forKey: "https://example.com/a")
            let size = await first.statistics().totalBytes / 3
            await first.close()

            // Room for two: the least recently used since the last run ("b") goes.
            let second = try DiskCacheStorage(directory: folder, maximumBytes: size * 2)
            #expect(await second.entry(forKey: "https://example.com/b") == nil)
            #expect(await second.entry(forKey: "https://example.com/a")?.body == Data(repeating: 1, count: 10))
            #expect(await second.entry(forKey: "https://example.com/c") != nil)
            #expect(await second.statistics().evictions == 1)
        }
    }

    @Test func evictionAtTheCapRemovesTheLeastRecentlyUsed() async throws {
        try await withTemporaryFolder { folder in
            let body = Data((0..<4000).map { _ in UInt8.random(in: 0...255) })
            let probe = try DiskCacheStorage(directory: folder + "/probe")
            try await probe.store(.sample(key: "https://example.com/probe", body: body))
            let size = await probe.statistics().totalBytes
            let storage = try DiskCacheStorage(directory: folder + "/cache", maximumBytes: size * 3 + size / 2)
            for name in ["a", "b", "c"] {
                try await storage.store(.sample(key: "https://example.com/\(name)", body: body))
            }
            _ = await storage.entry(forKey: "https://example.com/a")
            try await storage.store(.sample(key: "https://example.com/d", body: body))
            #expect(await storage.entry(forKey: "https://example.com/b") == nil)
            for name in ["a", "c", "d"] { #expect(await storage.entry(forKey: "https://example.com/\(name)") != nil) }
            let statistics = await storage.statistics()
            #expect(statistics.evictions == 1 && statistics.entryCount == 3)
            #expect(storage.recordLocation(forKey: "https://example.com/b") == nil)
        }
    }

    /// Each way a record can be damaged. Random bodies do not deflate, so a flipped byte there
    /// is caught by the CRC-32 alone (with the check removed, the test reads the flipped byte
    /// back as the body and fails).
    @Test(arguments: [
        "flip a byte in the body", "flip a byte in the header", "flip a byte in the checksum",
        "cut the segment inside the record", "cut the segment where the record starts", "zero the record",
    ])
    func aDamagedEntryIsRemovedCountedAndMissed(damage: String) async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            let entry = CacheEntry.sample(body: Data((0..<5000).map { _ in UInt8.random(in: 0...255) }))
            try await storage.store(entry)
            let place = try #require(storage.recordLocation(forKey: entry.key))
            switch damage {
            case "flip a byte in the header": try rewriteRecord(place) { $0[$0.startIndex + 9] ^= 0x01 }
            case "flip a byte in the checksum": try rewriteRecord(place) { $0[$0.endIndex - 1] ^= 0x80 }
            case "cut the segment inside the record": truncateFile(place.path, to: place.offset + place.length - 7)
            case "cut the segment where the record starts": truncateFile(place.path, to: place.offset)
            case "zero the record": try rewriteRecord(place) { $0 = Data(count: $0.count) }
            default: try rewriteRecord(place) { $0[$0.endIndex - 100] ^= 0x40 }
            }
            #expect(await storage.entry(forKey: entry.key) == nil)
            #expect(storage.recordLocation(forKey: entry.key) == nil)
            let statistics = await storage.statistics()
            #expect(statistics.corruptEntriesRemoved == 1 && statistics.entryCount == 0 && statistics.totalBytes == 0)
        }
    }

    // Checked to fail: with compaction copying records as they are, the copy is not smaller;
    // with the index keeping the copy's old location, the entry reads as a miss once the
    // segment is gone.
    @Test func compactionDeflatesTheRecordsItCopiesAndDeletesTheSegment() async throws {
        try await withTemporaryFolder { folder in
            // A cap of 512 KiB makes segments of 64 KiB: 14 records of 5 KB fill the first.
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 512 << 10)
            let keys = (0..<20).map { "https://example.com/\($0)" }
            for (index, key) in keys.enumerated() {
                try await storage.store(.sample(key: key, body: Data((0..<5000).map { UInt8(($0 + index) % 11) })))
            }
            let before = try #require(storage.recordLocation(forKey: keys[0]))
            let first = before.path
            let kept = try #require(keys.firstIndex { storage.recordLocation(forKey: $0)?.path != first })
            #expect(kept > 10, "the first segment ended after \(kept) records")
            // Removing all but the first of the first segment's records leaves it below half in
            // use: its last record is copied forward, deflated, and the segment goes.
            for key in keys[1..<kept] { await storage.removeEntry(forKey: key) }
            await storage.waitForQueuedWork()
            let after = try #require(storage.recordLocation(forKey: keys[0]))
            #expect(after.path != first && !fileExists(first))
            #expect(after.length < before.length / 5, "copied at \(after.length) bytes of \(before.length)")
            #expect(await storage.entry(forKey: keys[0])?.body == Data((0..<5000).map { UInt8($0 % 11) }))
            await storage.close()

            // Found again in its new place after a restart.
            let reopened = try DiskCacheStorage(directory: folder, maximumBytes: 512 << 10)
            #expect(await reopened.entry(forKey: keys[0])?.body == Data((0..<5000).map { UInt8($0 % 11) }))
            #expect(await reopened.statistics().entryCount == 1 + keys.count - kept)
            // A flipped byte in the deflated payload is caught.
            let moved = try #require(reopened.recordLocation(forKey: keys[0]))
            try rewriteRecord(moved) { $0[$0.startIndex + 40] ^= 0x40 }
            #expect(await reopened.entry(forKey: keys[0]) == nil)
            #expect(await reopened.statistics().corruptEntriesRemoved == 1)
        }
    }

    @Test func aRecordHoldingAnotherKeyIsAMissButNotDamage() async throws {
        try await withTemporaryFolder { folder in
            let entry = CacheEntry.sample(key: "https://example.com/one")
            do {
                let storage = try DiskCacheStorage(directory: folder)
                // "two" first, so that its own record lies before the last one the journal names
                // and is not found again as one whose line a crash lost.
                try await storage.store(.sample(key: "https://example.com/two"))
                try await storage.store(entry)
                let one = try #require(storage.recordLocation(forKey: entry.key))
                let two = try #require(storage.recordLocation(forKey: "https://example.com/two"))
                await storage.close()
                // As if the two keys hashed alike: the journal names the record of "one" for "two".
                let segment = URL(fileURLWithPath: one.path).deletingPathExtension().lastPathComponent
                let journal = try String(contentsOfFile: folder + "/journal", encoding: .utf8)
                    .replacingOccurrences(
                        of: "\(segment) \(two.offset) \(two.length)", with: "\(segment) \(one.offset) \(one.length)")
                try journal.write(toFile: folder + "/journal", atomically: true, encoding: .utf8)
            }
            let storage = try DiskCacheStorage(directory: folder)
            #expect(await storage.entry(forKey: "https://example.com/two") == nil)
            #expect(await storage.entry(forKey: "https://example.com/one") == entry)
            #expect(await storage.statistics().corruptEntriesRemoved == 0)
        }
    }

    @Test func whatACrashLeavesIsCleanedOrRecovered() async throws {
        try await withTemporaryFolder { folder in
            let old = CacheEntry.sample(key: "https://example.com/old", body: Data("old".utf8))
            let orphan = CacheEntry.sample(key: "https://example.com/orphan", body: Data("orphan".utf8))
            let segment: String
            do {
                let storage = try DiskCacheStorage(directory: folder)
                try await storage.store(old)
                segment = try #require(storage.recordLocation(forKey: old.key)).path
                await storage.close()
            }
            // Killed between an append and its journal line: a whole record the journal never
            // named, at the segment's end, whose store had not returned.
            do {
                let elsewhere = try DiskCacheStorage(directory: folder + "/elsewhere")
                try await elsewhere.store(orphan)
                let place = try #require(elsewhere.recordLocation(forKey: orphan.key))
                try appendToFile(segment, try recordBytes(place))
                await elsewhere.close()
            }
            // Then killed in the middle of appending a new version of "old": half a record.
            let oldBytes = try Data(contentsOf: URL(fileURLWithPath: segment))
            try appendToFile(segment, oldBytes.prefix(oldBytes.count / 2))
            // Killed in the middle of a journal line, and while compacting the journal.
            try appendToFile(folder + "/journal", Data("READ 0123".utf8))
            try Data("parley-http-cache-journal 2\nCLEAN".utf8).write(to: URL(fileURLWithPath: folder + "/journal.tmp"))
            // And a file of the format before segments.
            let former = folder + "/0123456789abcdef.entry"
            try Data("PARLEYCE".utf8).write(to: URL(fileURLWithPath: former))

            // Checked to fail with the clean-up of temporary files removed, and with a record the
            // journal does not name taken (the orphan found).
            let reopened = try DiskCacheStorage(directory: folder)
            #expect(!fileExists(folder + "/journal.tmp") && !fileExists(former))
            #expect(await reopened.entry(forKey: old.key) == old)
            #expect(await reopened.entry(forKey: orphan.key) == nil)
            let statistics = await reopened.statistics()
            #expect(statistics.entryCount == 1 && statistics.corruptEntriesRemoved == 0)
            // What the crash left fills most of the segment: it is compacted, "old" copied out.
            await reopened.waitForQueuedWork()
            #expect(!fileExists(segment) && reopened.recordLocation(forKey: old.key)?.path != segment)
            #expect(await reopened.entry(forKey: old.key) == old)
            let lines = try String(contentsOfFile: folder + "/journal", encoding: .utf8).split(separator: "\n")
            #expect(lines.first == "parley-http-cache-journal 2")
            #expect(lines.dropFirst().first?.hasPrefix("CLEAN ") == true)
            #expect(lines.contains { $0.hasPrefix("MOVE ") }, "\(lines)")
            #expect(
                lines.allSatisfy {
                    $0.hasPrefix("parley") || $0.hasPrefix("CLEAN ") || $0.hasPrefix("READ ") || $0.hasPrefix("MOVE ")
                }, "\(lines)")

            // New records go to a new segment, after what the crash left.
            let fresh = CacheEntry.sample(key: "https://example.com/fresh", body: Data("fresh".utf8))
            try await reopened.store(fresh)
            #expect(reopened.recordLocation(forKey: fresh.key)?.path != segment)
            #expect(await reopened.entry(forKey: fresh.key) == fresh)
        }
    }

    // Checked to fail: with the scan left out, both entries are misses; with the scan taking
    // the first record of a name, the first version comes back.
    @Test(arguments: ["missing", "not a journal"])
    func aMissingOrUnreadableJournalIsRebuiltFromTheSegments(journal: String) async throws {
        try await withTemporaryFolder { folder in
            let entry = CacheEntry.sample()
            let other = CacheEntry.sample(key: "https://example.com/other", body: Data("second version".utf8))
            do {
                let storage = try DiskCacheStorage(directory: folder)
                try await storage.store(entry)
                try await storage.store(.sample(key: other.key, body: Data("first version".utf8)))
                try await storage.store(other)
                await storage.close()
            }
            if journal == "missing" {
                try FileManager.default.removeItem(atPath: folder + "/journal")
            } else {
                try Data("not a journal\n\u{0}\u{1}".utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
            }
            let reopened = try DiskCacheStorage(directory: folder)
            #expect(await reopened.entry(forKey: entry.key) == entry)
            #expect(await reopened.entry(forKey: other.key) == other)
            #expect(await reopened.statistics().entryCount == 2)
        }
    }

    @Test func aSecondStorageOnOneDirectoryIsRefusedUntilTheFirstCloses() async throws {
        try await withTemporaryFolder { folder in
            let first = try DiskCacheStorage(directory: folder)
            #expect {
                _ = try DiskCacheStorage(directory: folder)
            } throws: { error in
                (error as? CacheError)?.category == .directoryInUse
            }
            await first.close()
            _ = try DiskCacheStorage(directory: folder)
            #expect(await first.entry(forKey: "https://example.com/a") == nil)
            await #expect(throws: CacheError.self) { try await first.store(.sample()) }
        }
    }

    @Test func anEntryLargerThanTheCapIsRefusedAndTheOldOneRemoved() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 2000)
            try await storage.store(.sample(body: Data("small".utf8)))
            let large = CacheEntry.sample(body: Data((0..<5000).map { _ in UInt8.random(in: 0...255) }))
            await #expect {
                try await storage.store(large)
            } throws: { error in
                (error as? CacheError)?.category == .entryTooLarge
            }
            #expect(await storage.entry(forKey: large.key) == nil)
            #expect(await storage.statistics().entryCount == 0)
        }
    }

    @Test func removeAllEmptiesTheDirectory() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            for name in ["a", "b"] { try await storage.store(.sample(key: "https://example.com/\(name)")) }
            await storage.removeEntry(forKey: "https://example.com/a")
            #expect(await storage.statistics().entryCount == 1)
            await storage.removeAll()
            #expect(await storage.statistics() == CacheStorageStatistics())
            #expect(files(in: folder, endingWith: ".segment").isEmpty)
        }
    }

    // MARK: - Writing behind

    // Checked to fail: with the pending entries left out of reads, the first expectation fails
    // (the record is not written yet); with `flush()` returning at once, the record is missing.
    @Test func anEntryStoredInTheBackgroundIsReadAtOnceAndWrittenByFlush() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            let entry = CacheEntry.sample(body: Data(repeating: 7, count: 50_000))
            try await storage.storeInBackground(entry)
            #expect(await storage.entry(forKey: entry.key) == entry)
            await storage.flush()
            #expect(storage.recordLocation(forKey: entry.key) != nil)
            #expect(await storage.statistics().entryCount == 1)
            await storage.close()
            #expect(await (try DiskCacheStorage(directory: folder)).entry(forKey: entry.key) == entry)
        }
    }

    // Checked to fail: with a removal leaving the pending write alone, the removed keys come back.
    @Test func theLatestStoreOrRemovalOfAKeyWinsOverWritesStillPending() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            let keys = (0..<40).map { "https://example.com/\($0)" }
            for round in 0..<3 {
                for key in keys {
                    try await storage.storeInBackground(
                        .sample(key: key, body: Data("\(key) version \(round)".utf8)))
                }
            }
            for key in keys.prefix(10) { await storage.removeEntry(forKey: key) }
            for key in keys.prefix(10) { #expect(await storage.entry(forKey: key) == nil) }
            await storage.close()

            let reopened = try DiskCacheStorage(directory: folder)
            for key in keys.prefix(10) { #expect(await reopened.entry(forKey: key) == nil) }
            for key in keys.dropFirst(10) {
                #expect(await reopened.entry(forKey: key)?.body == Data("\(key) version 2".utf8))
            }
            #expect(await reopened.statistics().entryCount == 30)
            #expect(files(in: folder, endingWith: ".tmp").isEmpty)
        }
    }

    // Checked to fail: with the writer putting a write in place although its key was stored
    // again or removed while it ran, the older body comes back (and the newer is lost).
    @Test(arguments: ["stored again", "removed"])
    func aKeyStoredAgainOrRemovedWhileItIsWrittenEndsAsTheLatestCallSays(change: String) async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            // A few MiB of random bytes keep the writer busy with a key long enough to see it;
            // should it finish first, the next key is tried.
            var caught: String?
            var generator = SystemRandomNumberGenerator()
            for attempt in 0..<20 where caught == nil {
                let key = "https://example.com/busy/\(attempt)"
                var body = Data(count: 4 << 20)
                body.withUnsafeMutableBytes { bytes in
                    for offset in stride(from: 0, to: bytes.count, by: 8) {
                        bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
                    }
                }
                try await storage.storeInBackground(.sample(key: key, body: body))
                while !storage.isWriting(key: key), storage.recordLocation(forKey: key) == nil {
                    try await Task.sleep(for: .milliseconds(1))
                }
                guard storage.isWriting(key: key) else { continue }
                if change == "removed" {
                    await storage.removeEntry(forKey: key)
                } else {
                    try await storage.storeInBackground(.sample(key: key, body: Data("newer".utf8)))
                }
                caught = key
            }
            let key = try #require(caught, "the writer was never seen writing")
            await storage.flush()
            let expected = change == "removed" ? nil : Data("newer".utf8)
            #expect(await storage.entry(forKey: key)?.body == expected)
            await storage.close()
            #expect(
                await (try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)).entry(forKey: key)?.body
                    == expected)
        }
    }

    // Checked to fail: with the bound on pending writes removed, the check on the memory they
    // held fails (some 40 MiB waited at once); with `close()` not waiting, entries are missing.
    @Test func moreThanTheWritesThatMayWaitAreAllWrittenAndClosingWaitsForThem() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            // 48 entries of 1 MiB, six times what may wait: stores wait for room.
            let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<48 {
                    group.addTask {
                        var numbered = body
                        numbered[0] = UInt8(index)
                        try? await storage.storeInBackground(
                            .sample(key: "https://example.com/\(index)", body: numbered))
                    }
                }
            }
            #expect(storage.largestPendingBytes <= DiskCacheStorage.maximumPendingBytes)
            #expect(storage.largestPendingBytes > 1 << 20, "the stores never waited together")
            await storage.close()
            let reopened = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            #expect(await reopened.statistics().entryCount == 48)
            for index in [0, 23, 47] {
                #expect(await reopened.entry(forKey: "https://example.com/\(index)")?.body.first == UInt8(index))
            }
        }
    }

    // Checked to fail: with a failed background write leaving the older entry in place, the
    // first expectation finds it.
    @Test func aBackgroundWriteThatFailsRemovesTheOldEntryAndIsCounted() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 2000)
            try await storage.store(.sample(body: Data("small".utf8)))
            // Random bytes do not deflate: the file would be larger than the whole cap.
            let large = CacheEntry.sample(body: Data((0..<5000).map { _ in UInt8.random(in: 0...255) }))
            try await storage.storeInBackground(large)
            await storage.flush()
            #expect(await storage.entry(forKey: large.key) == nil)
            let statistics = await storage.statistics()
            #expect(statistics.failedWrites == 1 && statistics.entryCount == 0)
        }
    }

    @Test func aClosedStorageRefusesBackgroundWrites() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder)
            await storage.close()
            await #expect(throws: CacheError.self) { try await storage.storeInBackground(.sample()) }
        }
    }

    @Test func manyConcurrentWritersAndReadersKeepTheIndexTrue() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 40_000)
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let key = "https://example.com/\(index % 40)"
                        if index % 3 == 0 {
                            _ = await storage.entry(forKey: key)
                        } else {
                            try? await storage.store(
                                .sample(key: key, body: Data(repeating: UInt8(index % 40), count: 900)))
                        }
                    }
                }
            }
            #expect(await storage.statistics().totalBytes <= 40_000)
            // Then 2,000 stores one after another, some forty-five times the cap: the segments
            // hold every record in use, and at most as many bytes again of records no longer in
            // use, beyond the segment being written (64 KiB at this cap) and what compaction
            // last appended to it.
            for index in 0..<2000 {
                try await storage.store(
                    .sample(
                        key: "https://example.com/more/\(index % 100)",
                        body: Data(repeating: UInt8(index % 251), count: 900)))
            }
            await storage.waitForQueuedWork()
            let statistics = await storage.statistics()
            let segmentBytes = files(in: folder, endingWith: ".segment").reduce(0) {
                $0 + (fileSize(folder + "/" + $1) ?? 0)
            }
            #expect(statistics.totalBytes <= 40_000 && statistics.entryCount > 0)
            #expect(segmentBytes >= statistics.totalBytes)
            #expect(segmentBytes <= 2 * 40_000 + (128 << 10), "\(segmentBytes) bytes of segments")
            await storage.close()
            let reopened = try DiskCacheStorage(directory: folder, maximumBytes: 40_000)
            #expect(await reopened.statistics().entryCount == statistics.entryCount)
            #expect(await reopened.statistics().totalBytes == statistics.totalBytes)
        }
    }

    // Checked to fail: with `storeWithoutWaiting` admitting beyond the bound, the bound check
    // fails; with it refusing without storing anything later, the reopened storage lacks entries.
    // The writer is held until the first refusal: one that kept up with the stores (a test's
    // thread can be starved on a loaded machine) would never let the writes waiting fill.
    @Test func aStoreWithoutWaitingIsRefusedOnlyWhileTheWritesWaitingAreFull() async throws {
        try await withTemporaryFolder { folder in
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
            let hold = storage.holdWriter()
            var refused = 0
            for index in 0..<24 {
                var numbered = body
                numbered[0] = UInt8(index)
                let entry = CacheEntry.sample(key: "https://example.com/\(index)", body: numbered)
                if try storage.storeWithoutWaiting(entry) {
                    // Read at once, from memory or from its file.
                    guard case .found(let found) = storage.entryWithoutWaiting(forKey: entry.key) else {
                        Issue.record("entry \(index) was not found right after it was stored")
                        continue
                    }
                    #expect(found.body.first == UInt8(index))
                } else {
                    refused += 1
                    hold.release()
                    try await storage.storeInBackground(entry)
                }
            }
            hold.release()
            #expect(refused > 0, "the writes waiting were never full")
            #expect(storage.largestPendingBytes <= DiskCacheStorage.maximumPendingBytes)
            await storage.close()
            #expect(throws: CacheError.self) { try storage.storeWithoutWaiting(.sample()) }
            let reopened = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            #expect(await reopened.statistics().entryCount == 24)
        }
    }
}
