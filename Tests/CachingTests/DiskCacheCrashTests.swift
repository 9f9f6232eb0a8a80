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
        /// As soon as a big entry's bytes are being written, in its temporary file (or in a
        /// partial file under its own name, which the storage never leaves): in the middle of
        /// the write. The writer flushes each file (`--sync`), so the write lasts a while.
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
        /// Temporary files the kill left: writes cut in the middle.
        var temporaryFilesLeft: Int
        /// Whether the writer was seen writing a big entry's bytes when it was killed.
        var cutAWrite: Bool
        /// The category of the error opening the directory beside the running writer threw.
        var openedBesideTheWriter: String?

        var description: String {
            "\(moment): \(started.count) started, \(completed.count) written" + (cutAWrite ? ", killed mid-write" : "")
        }
    }

    // Checked to fail: with `DiskCacheStorage` writing each file in place instead of through a
    // temporary file and a rename, a kill in the middle of a big entry leaves a partial file
    // under the entry's own name, which the next open finds damaged (and, with the checksum
    // check off as well, entries that no longer are whole); with the deletion of temporary files
    // on open removed, the check that none is left fails.
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
            #expect(rounds.contains { $0.cutAWrite && $0.temporaryFilesLeft > 0 }, "no kill cut a write: \(rounds)")
            #expect(rounds.filter { !$0.completed.isEmpty }.count >= 3, "\(rounds)")

            // And a file damaged under its own name (a torn write the disk never finished) is
            // removed, counted and read as a miss, and the storage goes on working
            let storage = try DiskCacheStorage(directory: directory, maximumBytes: 1 << 30)
            func path(_ index: Int) -> String {
                directory + "/" + DiskCacheStorage.fileName(forKey: CacheTestEntries.key(index))
            }
            let damaged = try #require(everStarted.sorted().first { fileExists(path($0)) })
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path(damaged)))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path(damaged)))
            #expect(await storage.entry(forKey: CacheTestEntries.key(damaged)) == nil)
            #expect(!fileExists(path(damaged)))
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
            // The first big entry from the target on: once it is announced, its files are polled
            // until its bytes are being written or it has been written.
            let big = (target...).first { CacheTestEntries.isBig($0) } ?? target
            let file = directory + "/" + DiskCacheStorage.fileName(forKey: CacheTestEntries.key(big))
            let length = CacheTestEntries.body(big).count
            writer.waitForLine { $0 == "writing \(big)" }
            while !writer.hasPrinted("wrote \(big)") {
                if fileExists(file + ".tmp") || (fileSize(file).map { $0 < length } ?? false) {
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
            wasKilled: wasKilled, temporaryFilesLeft: files(in: directory, endingWith: ".tmp").count,
            cutAWrite: cutAWrite && wasKilled, openedBesideTheWriter: refusal)
    }
}
