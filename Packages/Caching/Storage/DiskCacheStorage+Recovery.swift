import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCacheStorage {
    /// Creates `directory` when missing and takes its `lock` file with `flock`.
    ///
    /// - Returns: The lock file's descriptor, held while the storage is open.
    /// - Throws: ``CacheError``: `.directoryInUse` when another
    ///   storage holds it, `.directoryUnusable` when it cannot
    ///   be created or locked.
    static func lock(_ directory: String) throws -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheError(
                .directoryUnusable,
                message: "The cache directory \(directory) could not be created: \(error.localizedDescription). "
                    + "Choose a folder the process can write to.")
        }
        let lockPath = directory + "/lock"
        do {
            let descriptor = try FileCalls.openFile(lockPath, O_RDWR | O_CREAT)
            guard try FileCalls.lockExclusively(descriptor, path: lockPath) else {
                FileCalls.closeFile(descriptor)
                throw CacheError(
                    .directoryInUse,
                    message: "Another DiskCacheStorage has \(directory) open, in this process or another. Give each "
                        + "process its own directory, or close the other storage first.")
            }
            return descriptor
        } catch let failure as FileCalls.Failure {
            throw CacheError(.directoryUnusable, message: "The cache directory is unusable: \(failure).")
        }
    }

    /// Rebuilds the index from the directory and the journal: deletes the temporary files a
    /// crash left (and the entry files of the format before segments), keeps the records the
    /// journal names where their segments are long enough to hold them, compacts the journal,
    /// which opens it for appending, and removes and evicts what is not kept. A journal that is
    /// missing or not one at all is rebuilt by reading every segment, the newest record of each
    /// name winning. Nothing a crash leaves can make the index lie: every record read later is
    /// checked whole.
    ///
    /// - Returns: The index, the first generation it left free, the first segment number
    ///   never used, and the segments to compact, which the writer does once the storage runs.
    /// - Throws: ``FileCalls/Failure`` when the directory cannot be listed or the journal
    ///   cannot be written.
    static func recover(_ files: DiskCacheFiles, journal: inout JournalFile, maximumBytes: Int) throws -> (
        index: DiskCacheIndex, nextGeneration: UInt64, nextSegment: UInt64, compactions: [UInt64]
    ) {
        let segments = try files.recoverSegments()
        let replayed = journal.replay()
        var found: [DiskCacheIndex.Entry] = []
        if replayed == nil {
            for segment in segments { found += files.scan(segment.number, to: segment.size) }
        }
        let opened = DiskCacheIndex.opened(
            segments: segments, journal: replayed ?? [], found: found, maximumBytes: maximumBytes)
        var index = opened.index
        var compactions: [UInt64] = []
        for action in opened.actions {
            switch action {
            case .compactJournal(let entries):
                guard journal.compact(entries), journal.isOpen else {
                    throw FileCalls.Failure(action: "write the journal", path: journal.path, code: errno)
                }
                index.journalCompacted(lineCount: entries.count)
            case .removeSegment(let number):
                files.removeSegment(number)
            case .appendJournal(let records):
                _ = journal.append(records)
            case .compactSegment(let number):
                compactions.append(number)
            }
        }
        let nextSegment = (segments.map(\.number).max() ?? 0) + 1
        return (index, opened.nextGeneration, nextSegment, compactions)
    }
}
