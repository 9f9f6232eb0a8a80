import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``DiskCacheStorage``'s journal file, `journal` in its directory: read once when the storage
/// opens, then appended to and compacted (rewritten to a temporary file, then renamed over
/// itself). The text is ``CacheJournal``'s.
///
/// A failed append is ignored: the journal only orders entries, and the next open rebuilds what
/// it lacks from the files themselves. The storage keeps the file under its lock.
struct JournalFile: Sendable {
    /// The journal's path.
    let path: String
    /// The directory, flushed after a compaction's rename with `synchronizesToDisk`.
    let directory: String
    /// Whether a compacted journal, and the directory after its rename, is flushed with `fsync`.
    let synchronizesToDisk: Bool
    /// The descriptor lines are appended to, or -1 when the file is not open.
    private(set) var descriptor: Int32 = -1

    /// The journal of `directory`, not open yet: ``compact(_:)`` opens it.
    init(directory: String, synchronizesToDisk: Bool) {
        self.directory = directory
        self.synchronizesToDisk = synchronizesToDisk
        path = directory + "/journal"
    }

    /// Whether lines are appended.
    var isOpen: Bool { descriptor >= 0 }

    /// The names the journal on disk leaves in use, least recently used first; none when it is
    /// missing or unreadable.
    func replay() -> [EntryName] {
        guard let bytes = (try? FileCalls.readFile(path)) ?? nil else { return [] }
        return CacheJournal.order(of: bytes).compactMap { EntryName($0) }
    }

    /// Appends `records` in one write.
    func append(_ records: [CacheJournal.Record]) {
        guard descriptor >= 0, !records.isEmpty else { return }
        var lines = CacheJournal.lines(records)
        lines.withUTF8 { bytes in
            try? FileCalls.writeAll(UnsafeRawBufferPointer(bytes), to: descriptor, path: path)
        }
    }

    /// Rewrites the journal as one `CLEAN` line per name, least recently used first: to a
    /// temporary file, then renamed over the old journal, which is then the one appended to.
    ///
    /// - Returns: Whether it was rewritten; when not, the old journal stays as it was.
    mutating func compact(_ names: [EntryName]) -> Bool {
        let text = CacheJournal.compacted(names.map(\.description))
        let temporaryPath = path + DiskCacheFiles.temporarySuffix
        do {
            let temporary = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC)
            defer { FileCalls.closeFile(temporary) }
            try FileCalls.writeAll(Data(text.utf8), to: temporary, path: temporaryPath)
            if synchronizesToDisk { try FileCalls.flush(temporary, path: temporaryPath) }
        } catch {
            FileCalls.removeFile(temporaryPath)
            return false
        }
        guard (try? FileCalls.renameFile(temporaryPath, path)) != nil else {
            FileCalls.removeFile(temporaryPath)
            return false
        }
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
        close()
        descriptor = (try? FileCalls.openFile(path, O_WRONLY | O_APPEND)) ?? -1
        return true
    }

    /// Closes the file; appends are ignored afterwards.
    mutating func close() {
        if descriptor >= 0 { FileCalls.closeFile(descriptor) }
        descriptor = -1
    }
}
