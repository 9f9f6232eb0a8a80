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
    /// crash left, orders the entry files as the journal replays (those it does not name as the
    /// least recently used), compacts the journal, which opens it for appending, and evicts
    /// beyond the cap. Nothing a crash leaves can make the index lie: sizes come from the files.
    ///
    /// - Throws: ``FileCalls/Failure`` when the directory cannot be listed or the journal
    ///   cannot be written.
    static func recover(_ files: DiskCacheFiles, journal: inout JournalFile, maximumBytes: Int) throws -> (
        index: DiskCacheIndex, nextGeneration: UInt64
    ) {
        let found = try files.recoverFiles()
        let opened = DiskCacheIndex.opened(files: found, journalOrder: journal.replay(), maximumBytes: maximumBytes)
        var index = opened.index
        for action in opened.actions {
            switch action {
            case .compactJournal(let names):
                guard journal.compact(names), journal.isOpen else {
                    throw FileCalls.Failure(action: "write the journal", path: journal.path, code: errno)
                }
                index.journalCompacted(lineCount: names.count)
            case .removeFile(let name):
                files.remove(name)
            case .appendJournal(let records):
                journal.append(records)
            }
        }
        return (index, opened.nextGeneration)
    }
}
