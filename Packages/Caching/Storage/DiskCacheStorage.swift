import Dispatch
import Foundation
import Synchronization
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Entries in files in a directory of their own: compressed, checksummed, written atomically,
/// capped in total size with the least recently used evicted first, and found again by a new
/// storage on the same directory after the process restarts.
///
/// ```swift
/// let storage = try DiskCacheStorage(directory: cachesFolder + "/http", maximumBytes: 50 << 20)
/// let cache = HTTPCache(storage: storage)
/// ```
///
/// ## The directory
///
/// - `<16 hex digits>.entry`: one entry, named by a 64-bit FNV-1a hash of its key; the file
///   holds the key, so a hash collision reads as a miss, never as another URL's response. The
///   format (version, zlib-deflated payload, CRC-32) is described in the module's overview.
/// - `journal`: the order of use, as lines `CLEAN <name>` (stored), `READ <name>` (used) and
///   `REMOVE <name>` (removed) after a header line, appended as things happen and compacted
///   (rewritten to a temporary file, then renamed) when opened and when it has grown to more
///   than twice the lines it needs.
/// - `lock`: held with `flock` while a storage is open, so a second storage on the directory,
///   in this process or another, fails with ``CacheError/Category-swift.struct/directoryInUse``.
/// - `*.tmp`: writes in progress; any found when a storage opens are left over from a crash
///   and are deleted.
///
/// ## Crashes
///
/// An entry is written to a temporary file, flushed when ``synchronizesToDisk`` is set, and
/// renamed over the old one, so a `kill -9` at any moment leaves the old entry or the new one,
/// never a mixture, plus at worst a temporary file that the next open deletes. The journal only
/// orders entries: a file the journal does not name (killed between the rename and the
/// journal line) is kept as least recently used, a name without a file is dropped, and a torn
/// last line is ignored. Without ``synchronizesToDisk``, a power cut may leave a renamed file
/// whose bytes never reached the disk; its checksum fails, and the read removes it and counts
/// it in ``CacheStorageStatistics/corruptEntriesRemoved``.
///
/// ## Threads
///
/// An entry's bytes are compressed, checked, and written to or read from the page cache on
/// the caller's task, as a download writes its chunks. The index, the renames, removals and
/// journal lines change together under a `Mutex`, held for those few short system calls, so
/// the index changes in the order the files do. What waits for the disk (the flushes of
/// ``synchronizesToDisk``, removing every file) runs on a serial dispatch queue of the
/// storage's own, never on Swift's cooperative pool. Two processes must not share a directory,
/// and the lock makes sure they do not.
public final class DiskCacheStorage: CacheStorage {
    /// What the index knows of one entry file.
    private struct Record {
        /// The file's size, counted against the cap.
        var size: Int
        /// Which write produced the file, so a damaged read never removes a newer file.
        var generation: UInt64
    }

    private struct State {
        var lockDescriptor: Int32 = -1
        var journalDescriptor: Int32 = -1
        var journalLines = 0
        var records: [String: Record] = [:]
        var order = LRUList<String>()
        var totalBytes = 0
        var evictions = 0
        var corruptEntriesRemoved = 0
        var nextGeneration: UInt64 = 1
        var isClosed = false
    }

    /// The directory the storage owns.
    public let directory: String
    /// The most bytes the entry files may take together.
    public let maximumBytes: Int
    /// Whether each entry file, and the directory after its rename, is flushed with `fsync`.
    public let synchronizesToDisk: Bool

    /// Where the work that waits for the disk runs.
    private let queue = DispatchQueue(label: "parley.cache.disk")
    private let state = Mutex(State())

    static let journalHeader = "parley-http-cache-journal 1"
    static let entrySuffix = ".entry"
    static let temporarySuffix = ".tmp"

    /// Opens (creating if needed) the cache in `directory`.
    ///
    /// Opening reads the journal and lists the directory, deletes temporary files a crash left,
    /// compacts the journal, and evicts entries beyond `maximumBytes` (the cap may have been
    /// lowered since the last run). It blocks the calling thread for that long.
    ///
    /// - Parameters:
    ///   - directory: A directory for the cache alone; created with its parents when missing.
    ///   - maximumBytes: The cap on the entry files' total size; 50 MiB by default.
    ///   - synchronizesToDisk: Whether each write is flushed (`fsync`) before it is renamed
    ///     into place, so an entry survives a power cut; `false` by default, because a damaged
    ///     entry is detected and dropped anyway, and a cache can afford to lose one.
    /// - Throws: ``CacheError`` with ``CacheError/Category-swift.struct/directoryInUse`` when
    ///   another storage has the directory open, or
    ///   ``CacheError/Category-swift.struct/directoryUnusable`` when it cannot be created,
    ///   locked or listed.
    public init(directory: String, maximumBytes: Int = 50 << 20, synchronizesToDisk: Bool = false) throws {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        self.synchronizesToDisk = synchronizesToDisk
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheError(
                .directoryUnusable,
                message: "The cache directory \(directory) could not be created: \(error.localizedDescription). "
                    + "Choose a folder the process can write to.")
        }
        let lockPath = directory + "/lock"
        let lockDescriptor: Int32
        do {
            lockDescriptor = try FileCalls.openFile(lockPath, O_RDWR | O_CREAT)
            guard try FileCalls.lockExclusively(lockDescriptor, path: lockPath) else {
                FileCalls.closeFile(lockDescriptor)
                throw CacheError(
                    .directoryInUse,
                    message: "Another DiskCacheStorage has \(directory) open, in this process or another. Give each "
                        + "process its own directory, or close the other storage first.")
            }
        } catch let failure as FileCalls.Failure {
            throw CacheError(.directoryUnusable, message: "The cache directory is unusable: \(failure).")
        }
        do {
            try state.withLock { state in
                state.lockDescriptor = lockDescriptor
                try recover(&state)
            }
        } catch {
            state.withLock { Self.closeDescriptors(&$0) }
            if let failure = error as? FileCalls.Failure {
                throw CacheError(.directoryUnusable, message: "The cache directory is unusable: \(failure).")
            }
            throw error
        }
    }

    deinit {
        state.withLock { Self.closeDescriptors(&$0) }
    }

    /// The file name of the entry for `key`: 16 hex digits of its FNV-1a hash, and `.entry`.
    package static func fileName(forKey key: String) -> String {
        name(forKey: key) + entrySuffix
    }

    // MARK: - CacheStorage

    /// The entry under `key`, which becomes the most recently used; a damaged file is removed,
    /// counted, and read as `nil`.
    public func entry(forKey key: String) async -> CacheEntry? {
        let name = Self.name(forKey: key)
        guard let generation = state.withLock({ $0.isClosed ? nil : $0.records[name]?.generation }) else {
            return nil
        }
        // Read outside the lock: a rename replaces the file whole, so this is the old file or
        // the new one, and the generation says which write the index knew.
        let bytes: Data?
        do {
            bytes = try FileCalls.readFile(path(of: name))
        } catch {
            return nil
        }
        guard let bytes else {
            // Removed behind the storage's back: forget it.
            state.withLock { state in
                guard state.records[name]?.generation == generation else { return }
                forget(name, in: &state)
                appendJournal("REMOVE \(name)", &state)
            }
            return nil
        }
        switch EntryFile.decode(bytes) {
        case .success(let entry):
            state.withLock { state in
                guard !state.isClosed, state.records[name] != nil else { return }
                state.order.touch(name)
                appendJournal("READ \(name)", &state)
            }
            // Another key with the same hash: not this key's entry, and not damaged.
            return entry.key == key ? entry : nil
        case .failure:
            state.withLock { state in
                // A newer write may have replaced the damaged file since it was read.
                guard !state.isClosed, state.records[name]?.generation == generation else { return }
                removeFromDisk(name, &state)
                state.corruptEntriesRemoved += 1
            }
            return nil
        }
    }

    /// Writes `entry` atomically, then evicts the least recently used entries beyond the cap.
    ///
    /// - Throws: ``CacheError``: ``CacheError/Category-swift.struct/entryTooLarge`` when the
    ///   compressed file alone exceeds the cap, ``CacheError/Category-swift.struct/writeFailed``
    ///   when the disk refuses it, ``CacheError/Category-swift.struct/closed`` after ``close()``.
    ///   In the first two cases the old entry under the key is removed.
    public func store(_ entry: CacheEntry) async throws {
        let name = Self.name(forKey: entry.key)
        let bytes: Data
        do {
            bytes = try EntryFile.encode(entry)
        } catch {
            remove(name)
            throw error
        }
        guard bytes.count <= maximumBytes else {
            remove(name)
            throw CacheError(
                .entryTooLarge,
                message: "The response for \(LogRedaction.redactedURL(entry.key)) takes \(bytes.count) bytes "
                    + "compressed, more than the disk cache's cap of \(maximumBytes) bytes; it is not stored. Raise "
                    + "maximumBytes to keep it.")
        }
        // A name of its own, so concurrent writers of one key never share a temporary file.
        let temporaryPath = path(of: name) + "." + UUID().uuidString + Self.temporarySuffix
        do {
            let descriptor = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_EXCL)
            defer { FileCalls.closeFile(descriptor) }
            try FileCalls.writeAll(bytes, to: descriptor, path: temporaryPath)
        } catch {
            FileCalls.removeFile(temporaryPath)
            remove(name)
            throw CacheError(
                .writeFailed,
                message: "The response for \(LogRedaction.redactedURL(entry.key)) could not be stored: \(error). It is "
                    + "answered from the network until the disk accepts it.")
        }
        guard synchronizesToDisk else {
            try install(temporaryPath, size: bytes.count, name: name, key: entry.key)
            return
        }
        // Flushes wait for the disk: they run on the storage's queue, never on the cooperative
        // pool, and outside the lock, so readers and other writers go on meanwhile.
        try await onQueueThrowing {
            do {
                try FileCalls.flushFile(temporaryPath)
            } catch {
                FileCalls.removeFile(temporaryPath)
                self.remove(name)
                throw CacheError(
                    .writeFailed,
                    message: "The response for \(LogRedaction.redactedURL(entry.key)) could not be stored: \(error).")
            }
            try self.install(temporaryPath, size: bytes.count, name: name, key: entry.key)
            try? FileCalls.flushDirectory(self.directory)
        }
    }

    /// Removes the entry under `key`.
    public func removeEntry(forKey key: String) async {
        remove(Self.name(forKey: key))
    }

    /// Removes every entry and starts a new journal.
    public func removeAll() async {
        let names = state.withLock { state -> [String] in
            guard !state.isClosed else { return [] }
            let names = Array(state.records.keys)
            state.records = [:]
            state.order.removeAll()
            state.totalBytes = 0
            compactJournal(&state)
            return names
        }
        // The files go after the index forgot them; one a concurrent store renamed in meanwhile
        // may go too, which a later read finds missing and forgets.
        await onQueue {
            for name in names { FileCalls.removeFile(self.path(of: name)) }
        }
    }

    /// The entry count, the files' total size, evictions and damaged entries removed.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.records.count, totalBytes: state.totalBytes, evictions: state.evictions,
                corruptEntriesRemoved: state.corruptEntriesRemoved)
        }
    }

    /// Closes the journal and releases the directory's lock, so another storage may open it.
    ///
    /// Afterwards reads find nothing and writes throw ``CacheError/Category-swift.struct/closed``.
    /// Dropping the last reference to the storage does the same.
    public func close() async {
        state.withLock { Self.closeDescriptors(&$0) }
    }

    // MARK: - Under the lock

    private func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }

    private func onQueueThrowing(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Renames a written temporary file over entry `name`, then records it, journals it and
    /// evicts beyond the cap, all under the lock, so the index changes in the order the files do.
    private func install(_ temporaryPath: String, size: Int, name: String, key: String) throws {
        try state.withLock { state in
            guard !state.isClosed else {
                FileCalls.removeFile(temporaryPath)
                throw CacheError(.closed, message: "The disk cache at \(directory) was closed; open a new storage.")
            }
            do {
                try FileCalls.renameFile(temporaryPath, path(of: name))
            } catch {
                FileCalls.removeFile(temporaryPath)
                removeFromDisk(name, &state)
                throw CacheError(
                    .writeFailed,
                    message: "The response for \(LogRedaction.redactedURL(key)) could not be stored: \(error).")
            }
            forget(name, in: &state)
            state.records[name] = Record(size: size, generation: state.nextGeneration)
            state.nextGeneration += 1
            state.order.touch(name)
            state.totalBytes += size
            appendJournal("CLEAN \(name)", &state)
            evictBeyondCap(&state)
        }
    }

    private func remove(_ name: String) {
        state.withLock { state in
            guard !state.isClosed else { return }
            removeFromDisk(name, &state)
        }
    }

    // MARK: - Index and journal

    /// Deletes entry `name`'s file and forgets it, with a `REMOVE` line when it was known.
    private func removeFromDisk(_ name: String, _ state: inout State) {
        let known = state.records[name] != nil
        FileCalls.removeFile(path(of: name))
        forget(name, in: &state)
        if known { appendJournal("REMOVE \(name)", &state) }
    }

    private func forget(_ name: String, in state: inout State) {
        guard let record = state.records.removeValue(forKey: name) else { return }
        state.totalBytes -= record.size
        state.order.remove(name)
    }

    private func evictBeyondCap(_ state: inout State) {
        while state.totalBytes > maximumBytes, let victim = state.order.leastRecent {
            removeFromDisk(victim, &state)
            state.evictions += 1
        }
    }

    /// Appends a line to the journal, compacting it when it has grown past twice what it needs.
    /// A failed append is ignored: the journal only orders entries, and the next open rebuilds
    /// what it lacks from the files themselves.
    private func appendJournal(_ line: String, _ state: inout State) {
        guard state.journalDescriptor >= 0 else { return }
        try? FileCalls.writeAll(Data((line + "\n").utf8), to: state.journalDescriptor, path: journalPath)
        state.journalLines += 1
        if state.journalLines > 2000, state.journalLines > 2 * state.records.count {
            compactJournal(&state)
        }
    }

    /// Rewrites the journal as one `CLEAN` line per entry, least recently used first: to a
    /// temporary file, then renamed over the old journal.
    private func compactJournal(_ state: inout State) {
        var text = Self.journalHeader + "\n"
        let names = state.order.keysFromLeastRecent
        for name in names { text += "CLEAN \(name)\n" }
        let temporaryPath = journalPath + Self.temporarySuffix
        do {
            let descriptor = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC)
            defer { FileCalls.closeFile(descriptor) }
            try FileCalls.writeAll(Data(text.utf8), to: descriptor, path: temporaryPath)
            if synchronizesToDisk { try FileCalls.flush(descriptor, path: temporaryPath) }
        } catch {
            FileCalls.removeFile(temporaryPath)
            return
        }
        guard (try? FileCalls.renameFile(temporaryPath, journalPath)) != nil else {
            FileCalls.removeFile(temporaryPath)
            return
        }
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
        if state.journalDescriptor >= 0 { FileCalls.closeFile(state.journalDescriptor) }
        state.journalDescriptor = (try? FileCalls.openFile(journalPath, O_WRONLY | O_APPEND)) ?? -1
        state.journalLines = names.count
    }

    /// Rebuilds the index from the journal and the files, deletes leftover temporary files,
    /// compacts the journal and evicts beyond the cap.
    private func recover(_ state: inout State) throws {
        var files: [String: (size: Int, modified: TimeInterval)] = [:]
        for file in try FileCalls.listFiles(directory) {
            if file.name.hasSuffix(Self.temporarySuffix) {
                FileCalls.removeFile(directory + "/" + file.name)
            } else if file.name.hasSuffix(Self.entrySuffix) {
                let name = String(file.name.dropLast(Self.entrySuffix.count))
                if Self.isValidName(name) { files[name] = (file.size, file.modified) }
            }
        }
        // The journal's order, for the files that exist.
        var replayed = LRUList<String>()
        if let journal = try? FileCalls.readFile(journalPath), let text = String(bytes: journal, encoding: .utf8) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.first.map(String.init) == Self.journalHeader {
                for line in lines.dropFirst() {
                    let parts = line.split(separator: " ")
                    guard parts.count == 2, Self.isValidName(parts[1]) else { continue }
                    let name = String(parts[1])
                    switch parts[0] {
                    case "CLEAN", "READ": replayed.touch(name)
                    case "REMOVE": replayed.remove(name)
                    default: continue
                    }
                }
            }
        }
        var order = LRUList<String>()
        for name in replayed.keysFromLeastRecent where files[name] != nil { order.touch(name) }
        // Files the journal does not name (a crash between a rename and its line): least
        // recently used, the oldest first.
        let unnamed = files.filter { !order.contains($0.key) }.sorted { $0.value.modified > $1.value.modified }
        for (name, _) in unnamed { order.insertAsLeastRecent(name) }
        state.order = order
        for (name, file) in files {
            state.records[name] = Record(size: file.size, generation: state.nextGeneration)
            state.nextGeneration += 1
            state.totalBytes += file.size
        }
        compactJournal(&state)
        guard state.journalDescriptor >= 0 else {
            throw FileCalls.Failure(action: "write the journal", path: journalPath, code: errno)
        }
        evictBeyondCap(&state)
    }

    private static func closeDescriptors(_ state: inout State) {
        if state.journalDescriptor >= 0 { FileCalls.closeFile(state.journalDescriptor) }
        if state.lockDescriptor >= 0 { FileCalls.closeFile(state.lockDescriptor) }
        state.journalDescriptor = -1
        state.lockDescriptor = -1
        state.isClosed = true
    }

    private var journalPath: String { directory + "/journal" }

    private func path(of name: String) -> String { directory + "/" + name + Self.entrySuffix }

    /// 16 lowercase hex digits of the 64-bit FNV-1a hash of the key's UTF-8 bytes.
    static func name(forKey key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func isValidName(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 16 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
