import Dispatch
import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Entries in files in a directory of their own: compressed, checksummed, written atomically
/// by a background writer, capped in total size with the least recently used evicted first,
/// and found again by a new storage on the same directory after the process restarts.
///
/// ```swift
/// let storage = try DiskCacheStorage(directory: cachesFolder + "/http", maximumBytes: 50 << 20)
/// let cache = HTTPCache(storage: storage)
/// // …
/// await storage.close()   // at shutdown: waits for the writes still pending
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
/// ## Writing behind
///
/// ``storeInBackground(_:)``, which ``HTTPCache`` calls, returns as soon as the entry is in
/// memory: reads answer from there until its file is in place, and one writer, on a serial
/// dispatch queue of the storage's own, compresses the entries and writes their files in
/// batches, with one journal write per batch. The writes of one key are kept in order (a newer
/// entry waiting replaces an older one that has not been written yet), and removing a key
/// cancels its pending write. At most 8 MiB of entries wait (or one larger entry): a store
/// beyond that waits for the writer to catch up. ``store(_:)`` goes through the same writer and
/// returns when its file is in place, throwing what went wrong.
///
/// ``flush()`` waits for the writes given before it; ``close()`` refuses new writes, waits for
/// every pending one, then releases the directory. Dropping the last reference to the storage
/// does not lose pending writes either: the writer holds the storage until it has none left.
///
/// ## Crashes
///
/// An entry is written to a temporary file, flushed when ``synchronizesToDisk`` is set, and
/// renamed over the old one, so a `kill -9` at any moment leaves the old entry or the new one,
/// never a mixture, plus at worst a temporary file that the next open deletes. An entry still
/// waiting for the writer when the process dies is simply not stored: a miss later, as if the
/// response had never been cached. The journal only orders entries: a file the journal does
/// not name (killed between the rename and the journal line) is kept as least recently used, a
/// name without a file is dropped, and a torn last line is ignored. Without
/// ``synchronizesToDisk``, a power cut may leave a renamed file whose bytes never reached the
/// disk; its checksum fails, and the read removes it and counts it in
/// ``CacheStorageStatistics/corruptEntriesRemoved``.
///
/// ## Threads
///
/// Reads run on the caller's task: an entry's file is read from the page cache, checked and
/// inflated there. Writes run on the writer's queue, never on Swift's cooperative pool, and so
/// do the flushes of ``synchronizesToDisk`` and removing every file. The index, the renames,
/// removals and journal lines change together under a `PThreadMutex`, held for those few short
/// system calls, so the index changes in the order the files do. Two processes must not share
/// a directory, and the lock makes sure they do not.
public final class DiskCacheStorage: CacheStorage {
    /// What the index knows of one entry file.
    private struct Record {
        /// The file's size, counted against the cap.
        var size: Int
        /// Which write produced the file, so a damaged read never removes a newer file.
        var generation: UInt64
    }

    /// An entry waiting for the writer, or being written.
    private struct PendingWrite {
        var entry: CacheEntry
        /// This version's number: only the latest version of a name is put in place.
        var sequence: UInt64
        /// The number of the oldest store this write stands for (the versions it replaced
        /// before they were written), which ``DiskCacheStorage/flush()`` waits for.
        var oldestSequence: UInt64
        /// What it holds in memory, counted against the bound of pending writes.
        var size: Int
        /// Whether the writer has taken it.
        var isTaken = false
        /// Callers of ``DiskCacheStorage/store(_:)`` waiting for its outcome.
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    /// A write the writer has done, or failed to do, outside the lock.
    private struct Written {
        var name: String
        var key: String
        var sequence: UInt64
        var outcome: Result<(temporaryPath: String, size: Int), CacheError>
    }

    private struct State {
        var lockDescriptor: Int32 = -1
        var journalDescriptor: Int32 = -1
        var journalLines = 0
        /// The entry files, by name, in order of use.
        var files = LRUDictionary<String, Record>()
        var totalBytes = 0
        var evictions = 0
        var corruptEntriesRemoved = 0
        var failedWrites = 0
        var nextSequence: UInt64 = 1
        /// No more writes are accepted.
        var isClosing = false
        /// Nothing is read or written any more.
        var isClosed = false

        /// The latest version of each name not yet in place.
        var pending: [String: PendingWrite] = [:]
        /// Names whose pending write the writer has not taken, oldest first, from `queueStart`
        /// (a name may be there again after its write was taken or removed; it is skipped).
        var queue: [String] = []
        var queueStart = 0
        var pendingBytes = 0
        /// The most `pendingBytes` has been, for the tests of the bound.
        var largestPendingBytes = 0
        var isWriterRunning = false
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var flushWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The most bytes of entries that wait for the writer (or one entry, whatever its size).
    package static let maximumPendingBytes = 8 << 20
    /// The most entries the writer takes at once.
    static let batchLimit = 64

    /// The directory the storage owns.
    public let directory: String
    /// The most bytes the entry files may take together.
    public let maximumBytes: Int
    /// Whether each entry file, and the directory after its rename, is flushed with `fsync`.
    public let synchronizesToDisk: Bool

    /// Where the writer, and the work that waits for the disk, run.
    private let queue = DispatchQueue(label: "parley.cache.disk")
    private let state = PThreadMutex(State())

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
        // The writer holds the storage while it has writes, so none is pending here.
        state.withLock { Self.closeDescriptors(&$0) }
    }

    /// The file name of the entry for `key`: 16 hex digits of its FNV-1a hash, and `.entry`.
    package static func fileName(forKey key: String) -> String {
        name(forKey: key) + entrySuffix
    }

    // MARK: - CacheStorage

    /// The entry under `key`, which becomes the most recently used; a damaged file is removed,
    /// counted, and read as `nil`. An entry waiting for the writer is answered from memory.
    public func entry(forKey key: String) async -> CacheEntry? {
        let name = Self.name(forKey: key)
        enum Place {
            case nowhere
            case memory(CacheEntry)
            case file(generation: UInt64)
        }
        let place = state.withLock { state -> Place in
            guard !state.isClosed else { return .nowhere }
            if let pending = state.pending[name] { return .memory(pending.entry) }
            return state.files.peek(name).map { .file(generation: $0.generation) } ?? .nowhere
        }
        let generation: UInt64
        switch place {
        case .nowhere: return nil
        case .memory(let entry): return entry.key == key ? entry : nil
        case .file(let fileGeneration): generation = fileGeneration
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
                guard state.files.peek(name)?.generation == generation else { return }
                forget(name, in: &state)
                appendJournal("REMOVE \(name)\n", &state)
            }
            return nil
        }
        switch EntryFile.decode(bytes) {
        case .success(let entry):
            state.withLock { state in
                guard !state.isClosed, state.files.touch(name) != nil else { return }
                appendJournal("READ \(name)\n", &state)
            }
            // Another key with the same hash: not this key's entry, and not damaged.
            return entry.key == key ? entry : nil
        case .failure:
            state.withLock { state in
                // A newer write may have replaced the damaged file since it was read.
                guard !state.isClosed, state.files.peek(name)?.generation == generation else { return }
                removeFromDisk(name, &state)
                state.corruptEntriesRemoved += 1
            }
            return nil
        }
    }

    /// Writes `entry` atomically, then evicts the least recently used entries beyond the cap;
    /// returns when its file is in place (and flushed, with ``synchronizesToDisk``).
    ///
    /// The write goes through the storage's writer, after the writes already waiting for it,
    /// so that the writes of one key stay in order.
    ///
    /// - Throws: ``CacheError``: ``CacheError/Category-swift.struct/entryTooLarge`` when the
    ///   compressed file alone exceeds the cap, ``CacheError/Category-swift.struct/writeFailed``
    ///   when the disk refuses it, ``CacheError/Category-swift.struct/closed`` after ``close()``.
    ///   In the first two cases the old entry under the key is removed.
    public func store(_ entry: CacheEntry) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            do {
                let startsWriter = try state.withLock { state in
                    try admit(entry, size: entry.approximateSize, waiter: waiter, bounded: false, &state)
                }
                if startsWriter == true { startWriter() }
            } catch {
                waiter.resume(throwing: error)
            }
        }
    }

    /// Keeps `entry` in memory, where reads find it at once, and leaves writing its file to the
    /// storage's writer; waits only while 8 MiB of entries already wait for it.
    ///
    /// A write that fails later removes the old entry under the key and is counted in
    /// ``CacheStorageStatistics/failedWrites``; a write still waiting when the process dies is
    /// lost, and the entry is a miss after the restart.
    ///
    /// - Throws: ``CacheError`` with ``CacheError/Category-swift.struct/closed`` after
    ///   ``close()`` has begun.
    public func storeInBackground(_ entry: CacheEntry) async throws {
        let size = entry.approximateSize
        while true {
            let admitted = try state.withLock { state in
                try admit(entry, size: size, waiter: nil, bounded: true, &state)
            }
            if let startsWriter = admitted {
                if startsWriter { startWriter() }
                return
            }
            // Full: wait until the writer has made room (checked again under the lock, so a
            // wake-up between the two is not lost), then try again.
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let hasRoom = state.withLock { state in
                    guard !Self.hasRoom(for: size, in: state), !state.isClosing else { return true }
                    state.roomWaiters.append(waiter)
                    return false
                }
                if hasRoom { waiter.resume() }
            }
        }
    }

    /// Removes the entry under `key`, and its pending write if it has one.
    public func removeEntry(forKey key: String) async {
        let name = Self.name(forKey: key)
        let (waiters, room) = state.withLock { state in
            guard !state.isClosed else { return ([CheckedContinuation<Void, any Error>](), takeRoomWaiters(&state)) }
            let waiters = dropPending(name, &state)
            removeFromDisk(name, &state)
            return (waiters, takeRoomWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        for waiter in room { waiter.resume() }
    }

    /// Removes every entry, the pending writes with them, and starts a new journal.
    public func removeAll() async {
        let (names, waiters, room) = state.withLock { state in
            guard !state.isClosed else {
                return ([String](), [CheckedContinuation<Void, any Error>](), takeRoomWaiters(&state))
            }
            let names = state.files.keysFromLeastRecent
            var waiters: [CheckedContinuation<Void, any Error>] = []
            for name in Array(state.pending.keys) { waiters += dropPending(name, &state) }
            state.files.removeAll()
            state.totalBytes = 0
            compactJournal(&state)
            return (names, waiters, takeRoomWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        for waiter in room { waiter.resume() }
        // The files go after the index forgot them; one a concurrent store renamed in meanwhile
        // may go too, which a later read finds missing and forgets.
        await onQueue {
            for name in names { FileCalls.removeFile(self.path(of: name)) }
        }
    }

    /// The entry count, the files' total size, evictions, damaged entries removed and failed
    /// writes.
    ///
    /// Entries waiting for the writer are counted once their files are in place: call
    /// ``flush()`` first for figures that include them.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.files.count, totalBytes: state.totalBytes, evictions: state.evictions,
                corruptEntriesRemoved: state.corruptEntriesRemoved, failedWrites: state.failedWrites)
        }
    }

    /// Waits until every entry stored before the call has its file in place (or was replaced by
    /// a newer entry that has, or was removed).
    ///
    /// Call it when the files must be complete, say before copying the directory; ``close()``
    /// flushes by itself.
    public func flush() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isDone = state.withLock { state in
                let target = state.nextSequence - 1
                guard Self.oldestPendingSequence(in: state).map({ $0 <= target }) == true else { return true }
                state.flushWaiters.append((target, waiter))
                return false
            }
            if isDone { waiter.resume() }
        }
    }

    /// Refuses new writes, waits for the pending ones, then closes the journal and releases the
    /// directory's lock, so another storage may open it.
    ///
    /// Afterwards reads find nothing and writes throw ``CacheError/Category-swift.struct/closed``.
    /// Dropping the last reference to the storage releases the directory too, once the writer
    /// has written what was pending.
    public func close() async {
        let roomWaiters = state.withLock { state in
            state.isClosing = true
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        // Stores waiting for room find the storage closing and throw.
        for waiter in roomWaiters { waiter.resume() }
        await flush()
        state.withLock { Self.closeDescriptors(&$0) }
    }

    /// The most bytes of entries that have waited for the writer at once: at most
    /// ``maximumPendingBytes`` for the stores that wait for room.
    package var largestPendingBytes: Int {
        state.withLock { $0.largestPendingBytes }
    }

    /// Whether the writer is writing the entry under `key` now, for the tests of what happens
    /// to a key meanwhile.
    package func isWriting(key: String) -> Bool {
        let name = Self.name(forKey: key)
        return state.withLock { $0.pending[name]?.isTaken == true }
    }

    // MARK: - The writer

    /// Takes `entry` into the pending writes, replacing a version of its name that the writer
    /// has not taken yet.
    ///
    /// - Returns: Whether the writer must be started, or `nil` when the pending writes are full
    ///   (`bounded` only).
    private func admit(
        _ entry: CacheEntry, size: Int, waiter: CheckedContinuation<Void, any Error>?, bounded: Bool,
        _ state: inout State
    ) throws -> Bool? {
        guard !state.isClosing, !state.isClosed else {
            throw CacheError(.closed, message: "The disk cache at \(directory) was closed; open a new storage.")
        }
        let name = Self.name(forKey: entry.key)
        let replaced = state.pending[name]
        let replacedSize = replaced.map { $0.isTaken ? 0 : $0.size } ?? 0
        if bounded, !Self.hasRoom(for: size - replacedSize, in: state) { return nil }
        let sequence = state.nextSequence
        state.nextSequence += 1
        var write = PendingWrite(entry: entry, sequence: sequence, oldestSequence: sequence, size: size)
        if let replaced {
            // What waited for the older version now waits for this one.
            write.oldestSequence = replaced.oldestSequence
            write.waiters = replaced.waiters
            // A version being written is left to finish and found outdated; one not taken yet
            // keeps its place in the queue.
            if replaced.isTaken { state.queue.append(name) } else { state.pendingBytes -= replaced.size }
        } else {
            state.queue.append(name)
        }
        if let waiter { write.waiters.append(waiter) }
        state.pending[name] = write
        state.pendingBytes += size
        state.largestPendingBytes = max(state.largestPendingBytes, state.pendingBytes)
        guard !state.isWriterRunning else { return false }
        state.isWriterRunning = true
        return true
    }

    private static func hasRoom(for size: Int, in state: State) -> Bool {
        state.pendingBytes <= 0 || state.pendingBytes + size <= maximumPendingBytes
    }

    /// The oldest store that a pending write stands for, if any.
    private static func oldestPendingSequence(in state: State) -> UInt64? {
        state.pending.values.lazy.map(\.oldestSequence).min()
    }

    /// Forgets `name`'s pending write, if any; its version being written is then found
    /// outdated. Returns the callers waiting for it, to be resumed outside the lock.
    private func dropPending(_ name: String, _ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        guard let dropped = state.pending.removeValue(forKey: name) else { return [] }
        if !dropped.isTaken { state.pendingBytes -= dropped.size }
        return dropped.waiters
    }

    /// The stores waiting for room, to be resumed outside the lock so that they try again.
    private func takeRoomWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        defer { state.roomWaiters = [] }
        return state.roomWaiters
    }

    private func startWriter() {
        // The writer holds the storage until it has nothing left to write.
        queue.async { self.writeBatch() }
    }

    /// Writes one batch of pending entries, then queues itself again while more wait, so that
    /// other work on the queue (removing every file) is never held up behind a long stream of
    /// writes.
    private func writeBatch() {
        let (batch, room) = state.withLock { state in
            var batch: [(name: String, sequence: UInt64, entry: CacheEntry)] = []
            while batch.count < Self.batchLimit, state.queueStart < state.queue.count {
                let name = state.queue[state.queueStart]
                state.queueStart += 1
                guard var write = state.pending[name], !write.isTaken else { continue }
                write.isTaken = true
                // Taken, it no longer counts against the bound: its bytes are the writer's now.
                state.pendingBytes -= write.size
                state.pending[name] = write
                batch.append((name, write.sequence, write.entry))
            }
            if state.queueStart > 1024, state.queueStart * 2 > state.queue.count {
                state.queue.removeFirst(state.queueStart)
                state.queueStart = 0
            }
            // What was taken made room: the stores waiting for it go on while the batch is written.
            return (batch, batch.isEmpty ? [] : takeRoomWaiters(&state))
        }
        for waiter in room { waiter.resume() }
        guard !batch.isEmpty else {
            // Nothing left (what was pending may have been removed meanwhile): whoever waits
            // for the writes or for room has what it waits for.
            let (waiters, goesOn) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                // A store came in since the batch was taken: it is the writer's.
                guard state.queueStart >= state.queue.count else { return ([], true) }
                state.isWriterRunning = false
                defer {
                    state.flushWaiters = []
                    state.roomWaiters = []
                }
                return (state.flushWaiters.map(\.continuation) + state.roomWaiters, false)
            }
            for waiter in waiters { waiter.resume() }
            if goesOn { queue.async { self.writeBatch() } }
            return
        }
        let written = batch.map { write(name: $0.name, sequence: $0.sequence, entry: $0.entry) }
        let resumptions = install(written)
        if synchronizesToDisk { try? FileCalls.flushDirectory(directory) }
        resumptions()
        queue.async { self.writeBatch() }
    }

    /// Encodes `entry` and writes it to `name`'s temporary file (flushed with
    /// ``synchronizesToDisk``), outside the lock.
    private func write(name: String, sequence: UInt64, entry: CacheEntry) -> Written {
        let outcome: Result<(temporaryPath: String, size: Int), CacheError>
        do {
            let bytes = try EntryFile.encode(entry)
            guard bytes.count <= maximumBytes else {
                throw CacheError(
                    .entryTooLarge,
                    message: "The response for \(LogRedaction.redactedURL(entry.key)) takes \(bytes.count) bytes "
                        + "compressed, more than the disk cache's cap of \(maximumBytes) bytes; it is not stored. "
                        + "Raise maximumBytes to keep it.")
            }
            // One writer, so one temporary file per name at a time.
            let temporaryPath = path(of: name) + Self.temporarySuffix
            do {
                let descriptor = try FileCalls.openFile(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC)
                defer { FileCalls.closeFile(descriptor) }
                try FileCalls.writeAll(bytes, to: descriptor, path: temporaryPath)
                if synchronizesToDisk { try FileCalls.flush(descriptor, path: temporaryPath) }
            } catch {
                FileCalls.removeFile(temporaryPath)
                throw CacheError(
                    .writeFailed,
                    message: "The response for \(LogRedaction.redactedURL(entry.key)) could not be stored: \(error). "
                        + "It is answered from the network until the disk accepts it.")
            }
            outcome = .success((temporaryPath, bytes.count))
        } catch let error as CacheError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(CacheError(.writeFailed, message: "\(error)"))
        }
        return Written(name: name, key: entry.key, sequence: sequence, outcome: outcome)
    }

    /// Renames the written files over their entries, records them, journals them in one write
    /// and evicts beyond the cap, all under the lock, so the index changes in the order the
    /// files do. A write that is no longer its name's latest version (replaced or removed
    /// meanwhile) is thrown away.
    ///
    /// - Returns: What resumes the callers this batch finished, to be called outside the lock.
    private func install(_ written: [Written]) -> () -> Void {
        state.withLock { state in
            var finished: [(CheckedContinuation<Void, any Error>, CacheError?)] = []
            var lines = ""
            var lineCount = 0
            for item in written {
                guard let current = state.pending[item.name], current.sequence == item.sequence else {
                    if case .success(let file) = item.outcome { FileCalls.removeFile(file.temporaryPath) }
                    continue
                }
                state.pending.removeValue(forKey: item.name)
                var failure: CacheError?
                switch item.outcome {
                case .success(let file) where state.isClosed:
                    FileCalls.removeFile(file.temporaryPath)
                    failure = CacheError(
                        .closed, message: "The disk cache at \(directory) was closed; open a new storage.")
                case .success(let file):
                    do {
                        try FileCalls.renameFile(file.temporaryPath, path(of: item.name))
                        forget(item.name, in: &state)
                        state.files.set(Record(size: file.size, generation: item.sequence), forKey: item.name)
                        state.totalBytes += file.size
                        lines += "CLEAN \(item.name)\n"
                        lineCount += 1
                    } catch {
                        FileCalls.removeFile(file.temporaryPath)
                        failure = CacheError(
                            .writeFailed,
                            message:
                                "The response for \(LogRedaction.redactedURL(item.key)) could not be stored: \(error).")
                    }
                case .failure(let error):
                    failure = error
                }
                if failure != nil {
                    // A failed write leaves no older version behind to be served as current.
                    if !state.isClosed { removeFromDisk(item.name, &state) }
                    state.failedWrites += 1
                }
                finished += current.waiters.map { ($0, failure) }
            }
            if lineCount > 0 { appendJournal(lines, &state, lineCount: lineCount) }
            evictBeyondCap(&state)
            let room = state.roomWaiters
            state.roomWaiters = []
            var flushed: [CheckedContinuation<Void, Never>] = []
            if !state.flushWaiters.isEmpty {
                let oldest = Self.oldestPendingSequence(in: state) ?? .max
                flushed = state.flushWaiters.filter { $0.sequence < oldest }.map(\.continuation)
                state.flushWaiters.removeAll { $0.sequence < oldest }
            }
            return {
                for (waiter, failure) in finished {
                    if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
                }
                for waiter in room { waiter.resume() }
                for waiter in flushed { waiter.resume() }
            }
        }
    }

    private func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }

    // MARK: - Index and journal

    /// Deletes entry `name`'s file and forgets it, with a `REMOVE` line when it was known.
    private func removeFromDisk(_ name: String, _ state: inout State) {
        let known = state.files.contains(name)
        FileCalls.removeFile(path(of: name))
        forget(name, in: &state)
        if known { appendJournal("REMOVE \(name)\n", &state) }
    }

    private func forget(_ name: String, in state: inout State) {
        guard let record = state.files.removeValue(forKey: name) else { return }
        state.totalBytes -= record.size
    }

    private func evictBeyondCap(_ state: inout State) {
        while state.totalBytes > maximumBytes, let victim = state.files.leastRecent {
            removeFromDisk(victim.key, &state)
            state.evictions += 1
        }
    }

    /// Appends lines (each ending with a newline) to the journal in one write, compacting it
    /// when it has grown past twice what it needs. A failed append is ignored: the journal only
    /// orders entries, and the next open rebuilds what it lacks from the files themselves.
    private func appendJournal(_ lines: String, _ state: inout State, lineCount: Int = 1) {
        guard state.journalDescriptor >= 0 else { return }
        var lines = lines
        lines.withUTF8 { bytes in
            try? FileCalls.writeAll(UnsafeRawBufferPointer(bytes), to: state.journalDescriptor, path: journalPath)
        }
        state.journalLines += lineCount
        if state.journalLines > 2000, state.journalLines > 2 * state.files.count {
            compactJournal(&state)
        }
    }

    /// Rewrites the journal as one `CLEAN` line per entry, least recently used first: to a
    /// temporary file, then renamed over the old journal.
    private func compactJournal(_ state: inout State) {
        let names = state.files.keysFromLeastRecent
        let text = CacheJournal.compacted(names)
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
                if CacheJournal.isValidName(name) { files[name] = (file.size, file.modified) }
            }
        }
        // The order `CacheJournal` replays, for the files that exist.
        let journal = (try? FileCalls.readFile(journalPath)) ?? nil
        let replayed = journal.map { CacheJournal.order(of: $0) } ?? []
        var order = LRUDictionary<String, Record>()
        for name in replayed {
            guard let file = files[name] else { continue }
            order.set(Record(size: file.size, generation: state.nextSequence), forKey: name)
            state.nextSequence += 1
        }
        // Files the journal does not name (a crash between a rename and its line): least
        // recently used, the oldest first.
        let unnamed = files.filter { !order.contains($0.key) }.sorted { $0.value.modified > $1.value.modified }
        for (name, file) in unnamed {
            order.insertAsLeastRecent(Record(size: file.size, generation: state.nextSequence), forKey: name)
            state.nextSequence += 1
        }
        state.files = order
        state.totalBytes = files.values.reduce(0) { $0 + $1.size }
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
        state.isClosing = true
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
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: hash >> (60 - 4 * UInt64(index))) & 0x0F
                buffer[index] = digit < 10 ? 0x30 + digit : 0x57 + digit
            }
            return 16
        }
    }
}
