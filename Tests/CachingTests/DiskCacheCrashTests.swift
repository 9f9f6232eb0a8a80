import CacheTestEntries
import Caching
import Foundation
import Glibc
import HTTPTypes
import TestSupport
import Testing
import Transport

/// The disk cache across real processes: `parley-cache-writer` killed with SIGKILL while it
/// writes, and a cache written by one process and read by another.
///
/// Serialized: each test keeps a core busy with a child process writing megabytes, and both at
/// once on two cores would starve the timing-sensitive tests that run beside them.
@Suite(.serialized) struct DiskCacheCrashTests {
    /// When a writer is killed in one round of ``killedWritersLeaveOnlyWholeEntriesOrMisses()``.
    enum KillMoment: CaseIterable, CustomStringConvertible, Sendable {
        /// Right after it announces an entry: while it builds, compresses or writes it.
        case afterWriting
        /// As soon as a big entry's bytes are being appended to a segment: in the middle of the
        /// write, or before it is flushed. The writer flushes each append (`--sync`), so the
        /// write lasts a while.
        case whileABigEntryIsWritten
        /// Right after an entry's `store(_:)` has returned: between two entries.
        case afterWrote
        /// Through `HTTPCache`, whose answers wait in memory for the background writer.
        case withWritesPending

        var description: String {
            switch self {
            case .afterWriting: "after \"writing\""
            case .whileABigEntryIsWritten: "while a big entry is written"
            case .afterWrote: "after \"wrote\""
            case .withWritesPending: "with background writes pending"
            }
        }
    }

    /// What one round did.
    struct Round: Sendable, CustomStringConvertible {
        var moment: KillMoment
        /// Entries the writer announced, and those whose `store(_:)` had returned.
        var started: [Int]
        var completed: [Int]
        /// Whether the writer was still running when it was killed.
        var wasKilled: Bool
        /// Whether the writer was seen writing a big entry's bytes when it was killed.
        var cutAWrite: Bool
        /// The category of the error opening the directory beside the running writer threw.
        var openedBesideTheWriter: String?

        var description: String {
            "\(moment): \(started.count) started, \(completed.count) written" + (cutAWrite ? ", killed mid-write" : "")
        }
    }

    // What it holds the storage to: a record is named in the journal only once it is whole, so
    // a kill in the middle of a big entry's append leaves a torn record that nothing names (read
    // as damaged, it would fail the count of corrupt entries); and a store returns only once
    // its record is named (a miss after the kill would fail the check of written entries).
    @Test func killedWritersLeaveOnlyWholeEntriesOrMisses() async throws {
        let writer = try ChildProcess.siblingExecutable("parley-cache-writer")
        try await withTemporaryFolder { folder in
            let directory = folder + "/cache"
            var rounds: [Round] = []
            var first = 0
            var everStarted = Set<Int>()
            var expected: [Int: Data] = [:]
            // Three rounds of each moment, in turn; each round starts a little before where the
            // last one ended, so that some writes replace files that exist.
            for round in 0..<12 {
                let moment = KillMoment.allCases[round % KillMoment.allCases.count]
                // Given a writer at work on the directory, killed with SIGKILL
                let outcome = try await onOwnThread { [first] in
                    try Self.runAndKill(writer, directory: directory, first: first, moment: moment, probe: round == 0)
                }
                #expect(outcome.wasKilled, "round \(round): the writer exited by itself")
                if round == 0 {
                    // While it runs, the directory is the writer's alone.
                    #expect(outcome.openedBesideTheWriter == CacheError.Category.directoryInUse.name)
                }
                everStarted.formUnion(outcome.started)

                // When the test process opens the directory
                let storage = try DiskCacheStorage(directory: directory, maximumBytes: 1 << 30)

                // Then no temporary file is left, every entry ever started is whole or absent,
                // and every entry whose store had returned is there
                #expect(files(in: directory, endingWith: ".tmp").isEmpty, "round \(round): temporary files left")
                for index in everStarted.sorted() {
                    guard let entry = await storage.entry(forKey: CacheTestEntries.key(index)) else {
                        #expect(!outcome.completed.contains(index), "round \(round): written entry \(index) is gone")
                        continue
                    }
                    let body = expected[index] ?? CacheTestEntries.body(index)
                    expected[index] = body
                    #expect(entry.body == body, "round \(round) (\(moment)): entry \(index) is not whole")
                    #expect(entry.key == CacheTestEntries.key(index) && entry.head.status == .ok)
                }
                #expect(await storage.statistics().corruptEntriesRemoved == 0)
                await storage.close()
                rounds.append(outcome)
                first = max(0, (outcome.started.max() ?? first) - 2)
            }
            // At least one kill cut a write in the middle, and several came after whole writes.
            #expect(rounds.contains { $0.cutAWrite }, "no kill cut a write: \(rounds)")
            #expect(rounds.filter { !$0.completed.isEmpty }.count >= 3, "\(rounds)")

            // And a record damaged where it lies (a write the disk never finished) is forgotten,
            // counted and read as a miss, and the storage goes on working
            let storage = try DiskCacheStorage(directory: directory, maximumBytes: 1 << 30)
            let damaged = try #require(
                everStarted.sorted().first { storage.recordLocation(forKey: CacheTestEntries.key($0)) != nil })
            let place = try #require(storage.recordLocation(forKey: CacheTestEntries.key(damaged)))
            try rewriteRecord(place) { bytes in
                bytes.replaceSubrange(
                    (bytes.startIndex + bytes.count / 2)..., with: Data(count: bytes.count - bytes.count / 2))
            }
            #expect(await storage.entry(forKey: CacheTestEntries.key(damaged)) == nil)
            #expect(storage.recordLocation(forKey: CacheTestEntries.key(damaged)) == nil)
            #expect(await storage.statistics().corruptEntriesRemoved == 1)
            let fresh = CacheEntry.sample(key: "https://cache.test/after-the-kills", body: Data("alive".utf8))
            try await storage.store(fresh)
            #expect(await storage.entry(forKey: fresh.key) == fresh)
            await storage.close()
        }
    }

    // Checked to fail: with `close()` no longer waiting for the background writer, the reader
    // finds the entries still pending at the end as misses.
    @Test(arguments: [false, true])
    func aCacheWrittenByOneProcessIsReadByAnother(throughCache: Bool) async throws {
        let writer = try ChildProcess.siblingExecutable("parley-cache-writer")
        try await withTemporaryFolder { folder in
            let count = 24
            // Given a process that stores 24 entries, 6 of them megabytes, then exits by itself
            var arguments = ["write", folder, "--count", "\(count)"]
            if throughCache { arguments.append("--through-cache") }
            let written = try await onOwnThread { [arguments] in
                let process = try WriterProcess(writer, arguments)
                return (status: process.waitForExit(), lines: process.lines)
            }
            #expect(written.status == 0, "\(written.lines)")
            #expect(written.lines.last == "closed")

            // When another process opens the directory and reads them
            let read = try await onOwnThread {
                let process = try WriterProcess(writer, ["read", folder, "--count", "\(count)"])
                return (status: process.waitForExit(), lines: process.lines)
            }

            // Then each is a hit with the body it was written with
            #expect(read.status == 0, "\(read.lines)")
            #expect(read.lines.filter { $0.hasPrefix("hit ") }.count == count, "\(read.lines)")
            #expect(read.lines.last == "statistics \(count) 0")

            // And the test process, a third, finds them too
            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 1 << 30)
            #expect(await storage.statistics().entryCount == count)
            for index in [0, 1, count - 1] {
                #expect(await storage.entry(forKey: CacheTestEntries.key(index))?.body == CacheTestEntries.body(index))
            }
            await storage.close()
        }
    }

    /// Starts the writer at entry `first`, kills it at `moment`, and says what it had done;
    /// with `probe`, first tries to open the directory beside it. Blocking.
    static func runAndKill(_ path: String, directory: String, first: Int, moment: KillMoment, probe: Bool) throws
        -> Round
    {
        var arguments = ["write", directory, "--first", "\(first)"]
        switch moment {
        case .withWritesPending: arguments.append("--through-cache")
        case .whileABigEntryIsWritten: arguments.append("--sync")
        default: break
        }
        let writer = try WriterProcess(path, arguments)
        var generator = SystemRandomNumberGenerator()
        let target = first + Int.random(in: 0...5, using: &generator)
        var cutAWrite = false
        switch moment {
        case .afterWriting:
            writer.waitForLine { $0 == "writing \(target)" }
        case .whileABigEntryIsWritten:
            // The first big entry from the target on: once it is announced, the segments are
            // polled until they grow (its bytes are being appended) or it has been written.
            let big = (target...).first { CacheTestEntries.isBig($0) } ?? target
            writer.waitForLine { $0 == "writing \(big)" }
            let before = segmentBytes(directory)
            while !writer.hasPrinted("wrote \(big)") {
                if segmentBytes(directory) > before {
                    cutAWrite = true
                    break
                }
                usleep(100)
            }
        case .afterWrote:
            writer.waitForLine { $0 == "wrote \(target)" }
        case .withWritesPending:
            writer.waitForLine { $0 == "queued \(target)" }
        }
        var refusal: String?
        if probe {
            do {
                _ = try DiskCacheStorage(directory: directory)
            } catch let error as CacheError {
                refusal = error.category.name
            }
        }
        let wasKilled = writer.kill()
        writer.waitForLine { _ in false }
        return Round(
            moment: moment, started: writer.numbers(after: "writing"), completed: writer.numbers(after: "wrote"),
            wasKilled: wasKilled, cutAWrite: cutAWrite && wasKilled, openedBesideTheWriter: refusal)
    }

    /// The bytes of every segment in `directory`.
    static func segmentBytes(_ directory: String) -> Int {
        files(in: directory, endingWith: ".segment").reduce(0) { $0 + (fileSize(directory + "/" + $1) ?? 0) }
    }
}
