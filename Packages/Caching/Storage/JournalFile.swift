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
/// A failed append is ignored: the entries whose lines it held are misses after the next open,
/// as if they had never been stored. A journal that is missing or not one at all is rebuilt by
/// reading every segment. The storage keeps the file under its lock.
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

    /// What the journal on disk says: the entries in use, least recently used first, with
    /// their records' locations; `nil` when it is missing, unreadable or not a journal.
    func replay() -> [DiskCacheIndex.Entry]? {
        guard let bytes = (try? FileCalls.readFile(path)) ?? nil else { return nil }
        let replay = CacheJournal.replay(bytes)
        guard replay.isUsable else { return nil }
        return replay.entries.compactMap { entry in
            EntryName(entry.name).map { DiskCacheIndex.Entry(name: $0, location: entry.location) }
        }
    }

    /// Appends `records` in one write, flushed with `synchronizesToDisk` unless they only
    /// record reads (the order of use is not worth a flush per hit).
    ///
    /// - Returns: Whether the lines are in the journal; `false` when it is not open or the
    ///   write failed, and the storage then rewrites the journal whole.
    func append(_ records: [CacheJournal.Record]) -> Bool {
        guard !records.isEmpty else { return true }
        guard descriptor >= 0 else { return false }
        var lines = CacheJournal.lines(records)
        do {
            try lines.withUTF8 { bytes in
                try FileCalls.writeAll(UnsafeRawBufferPointer(bytes), to: descriptor, path: path)
            }
            let readsOnly = records.allSatisfy { if case .read = $0 { true } else { false } }
            if synchronizesToDisk, !readsOnly { try FileCalls.flush(descriptor, path: path) }
            return true
        } catch {
            return false
        }
    }

    /// Rewrites the journal as one `CLEAN` line per entry, least recently used first: to a
    /// temporary file, then renamed over the old journal. The temporary file's descriptor,
    /// opened for appending, is the one appended to afterwards, so nothing is opened again
    /// after the rename.
    ///
    /// - Returns: Whether it was rewritten; when not, the old journal stays as it was.
    mutating func compact(_ entries: [DiskCacheIndex.Entry]) -> Bool {
        let text = CacheJournal.compacted(entries.map { ($0.name.description, $0.location) })
        let temporaryPath = path + DiskCacheFiles.temporarySuffix
        let temporary: Int32
        do {
            temporary = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        } catch {
            return false
        }
        do {
            try FileCalls.writeAll(Data(text.utf8), to: temporary, path: temporaryPath)
            if synchronizesToDisk { try FileCalls.flush(temporary, path: temporaryPath) }
            try FileCalls.renameFile(temporaryPath, path)
        } catch {
            FileCalls.closeFile(temporary)
            FileCalls.removeFile(temporaryPath)
            return false
        }
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
        close()
        descriptor = temporary
        return true
    }

    /// Deletes the journal and closes it: what the storage does when it can neither append to
    /// the journal nor rewrite it, so that the next open reads the segments instead of a
    /// journal that no longer says what they hold.
    mutating func discard() {
        close()
        FileCalls.removeFile(path)
    }

    /// Closes the file; appends are ignored afterwards.
    mutating func close() {
        if descriptor >= 0 { FileCalls.closeFile(descriptor) }
        descriptor = -1
    }
}
