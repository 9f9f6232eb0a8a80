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
///   in this process or another, fails with `.directoryInUse`.
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
/// inflated there, and a lookup never suspends (``entryWithoutWaiting(forKey:)``), nor does a
/// store the writer has room for (``storeWithoutWaiting(_:)``). Writes run on the writer's
/// queue, never on Swift's cooperative pool, and so do the flushes of ``synchronizesToDisk`` and
/// removing every file. The index, the renames, removals and journal lines change together
/// under a `PThreadMutex`, held for those few short system calls, so the index changes in the
/// order the files do. Two processes must not share a directory, and the lock makes sure they
/// do not.
///
/// ## Its parts
///
/// The storage is a thin shell that owns the lock, the writer's queue and the callers waiting
/// for it. What it knows is in two values without I/O, whose changes return what to do to the
/// files: the index of entry files (sizes, order of use, the cap, eviction, the counters) and
/// the writes waiting for the writer. The journal's text, the journal file, and the entry files
/// (paths, reading, writing, renaming, recovery's listing) each have a type of their own.
public final class DiskCacheStorage: CacheStorage {
    /// Everything that changes, behind the lock.
    struct State {
        var index: DiskCacheIndex
        var pending: PendingWrites
        var journal: JournalFile
        var lockDescriptor: Int32
        /// No more writes are accepted.
        var isClosing = false
        /// Nothing is read or written any more.
        var isClosed = false
        /// Callers of ``DiskCacheStorage/store(_:)`` waiting for the outcome of their name's
        /// latest version.
        var storeWaiters: [EntryName: [CheckedContinuation<Void, any Error>]] = [:]
        /// Stores waiting for room among the pending writes.
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        /// Flushes waiting for every store up to a sequence number.
        var flushWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The most bytes of entries that wait for the writer (or one entry, whatever its size).
    package static let maximumPendingBytes = PendingWrites.maximumBytes

    /// The directory the storage owns.
    public let directory: String
    /// The most bytes the entry files may take together.
    public let maximumBytes: Int
    /// Whether each entry file, and the directory after its rename, is flushed with `fsync`.
    public let synchronizesToDisk: Bool

    /// The entry files.
    let files: DiskCacheFiles
    /// Where the writer, and the work that waits for the disk, run.
    let queue = DispatchQueue(label: "parley.cache.disk")
    let state: PThreadMutex<State>

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
    /// - Throws: ``CacheError`` with `.directoryInUse` when
    ///   another storage has the directory open, or
    ///   `.directoryUnusable` when it cannot be created,
    ///   locked or listed.
    public init(directory: String, maximumBytes: Int = 50 << 20, synchronizesToDisk: Bool = false) throws {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        self.synchronizesToDisk = synchronizesToDisk
        files = DiskCacheFiles(directory: directory, synchronizesToDisk: synchronizesToDisk)
        let lockDescriptor = try Self.lock(directory)
        do {
            var journal = JournalFile(directory: directory, synchronizesToDisk: synchronizesToDisk)
            let opened = try Self.recover(files, journal: &journal, maximumBytes: self.maximumBytes)
            state = PThreadMutex(
                State(
                    index: opened.index, pending: PendingWrites(firstSequence: opened.nextGeneration),
                    journal: journal, lockDescriptor: lockDescriptor))
        } catch {
            FileCalls.closeFile(lockDescriptor)
            if let failure = error as? FileCalls.Failure {
                throw CacheError(.directoryUnusable, message: "The cache directory is unusable: \(failure).")
            }
            throw error
        }
    }

    deinit {
        // The writer holds the storage while it has writes, so none is pending here.
        state.withLock { Self.closeFiles(&$0) }
    }

    /// The file name of the entry for `key`: 16 hex digits of its FNV-1a hash, and `.entry`.
    package static func fileName(forKey key: String) -> String {
        EntryName(key: key).fileName
    }

    // MARK: - Reading

    /// The entry under `key`, which becomes the most recently used; a damaged file is removed,
    /// counted, and read as `nil`. An entry waiting for the writer is answered from memory.
    public func entry(forKey key: String) async -> CacheEntry? {
        if case .found(let entry) = entryWithoutWaiting(forKey: key) { return entry }
        return nil
    }

    /// The entry under `key`, as ``entry(forKey:)`` returns it, on the caller's thread: always a
    /// definite answer. A key the index does not know costs a lookup under the lock and nothing
    /// else; a file is read outside the lock.
    public func entryWithoutWaiting(forKey key: String) -> CacheLookup {
        let name = EntryName(key: key)
        enum Place {
            case nowhere
            case memory(CacheEntry)
            case file(generation: UInt64)
        }
        let place = state.withLock { state -> Place in
            guard !state.isClosed else { return .nowhere }
            if let pending = state.pending.write(name) { return .memory(pending.entry) }
            return state.index.record(name).map { .file(generation: $0.generation) } ?? .nowhere
        }
        let generation: UInt64
        switch place {
        case .nowhere: return .absent
        case .memory(let entry): return entry.key == key ? .found(entry) : .absent
        case .file(let fileGeneration): generation = fileGeneration
        }
        // Read outside the lock: a rename replaces the file whole, so this is the old file or
        // the new one, and the generation says which write the index knew.
        let bytes: Data?
        do {
            bytes = try files.read(name)
        } catch {
            return .absent
        }
        guard let bytes else {
            // Removed behind the storage's back: forget it.
            change { $0.index.readFoundNoFile(name, generation: generation) }
            return .absent
        }
        switch EntryFile.decode(bytes) {
        case .success(let entry):
            change { state in state.isClosed ? [] : state.index.read(name) }
            // Another key with the same hash: not this key's entry, and not damaged.
            return entry.key == key ? .found(entry) : .absent
        case .failure:
            // A newer write may have replaced the damaged file since it was read.
            change { state in state.isClosed ? [] : state.index.readFoundDamage(name, generation: generation) }
            return .absent
        }
    }

    // MARK: - Writing

    /// Writes `entry` atomically, then evicts the least recently used entries beyond the cap;
    /// returns when its file is in place (and flushed, with ``synchronizesToDisk``).
    ///
    /// The write goes through the storage's writer, after the writes already waiting for it,
    /// so that the writes of one key stay in order.
    ///
    /// - Throws: ``CacheError``: `.entryTooLarge` when the
    ///   compressed file alone exceeds the cap, `.writeFailed`
    ///   when the disk refuses it, `.closed` after ``close()``.
    ///   In the first two cases the old entry under the key is removed.
    public func store(_ entry: CacheEntry) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            do {
                let admission = try state.withLock { state in
                    let name = EntryName(key: entry.key)
                    let admission = try admit(entry, as: name, bounded: false, &state)
                    state.storeWaiters[name, default: []].append(waiter)
                    return admission
                }
                if admission == .admitted(startsWriter: true) { startWriter() }
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
    /// - Throws: ``CacheError`` with `.closed` after
    ///   ``close()`` has begun.
    public func storeInBackground(_ entry: CacheEntry) async throws {
        while try !storeWithoutWaiting(entry) {
            // Full: wait until the writer has made room (checked again under the lock, so a
            // wake-up between the two is not lost), then try again.
            let size = entry.approximateSize
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let hasRoom = state.withLock { state in
                    guard !state.pending.hasRoom(for: size), !state.isClosing else { return true }
                    state.roomWaiters.append(waiter)
                    return false
                }
                if hasRoom { waiter.resume() }
            }
        }
    }

    /// Hands `entry` to the writer as ``storeInBackground(_:)`` does, unless the writes waiting
    /// for it are full; never suspends.
    ///
    /// - Returns: `true` when the entry was taken; `false` when 8 MiB of entries already wait
    ///   (``storeInBackground(_:)`` then waits for room).
    /// - Throws: ``CacheError`` with `.closed` after
    ///   ``close()`` has begun.
    public func storeWithoutWaiting(_ entry: CacheEntry) throws -> Bool {
        let name = EntryName(key: entry.key)
        let admission = try state.withLock { try admit(entry, as: name, bounded: true, &$0) }
        switch admission {
        case .full: return false
        case .admitted(let startsWriter): if startsWriter { startWriter() }
        }
        return true
    }

    // MARK: - Removing

    /// Removes the entry under `key`, and its pending write if it has one.
    public func removeEntry(forKey key: String) async {
        let name = EntryName(key: key)
        let (waiters, room) = state.withLock { state in
            guard !state.isClosed else { return ([CheckedContinuation<Void, any Error>](), takeRoomWaiters(&state)) }
            state.pending.drop(name)
            let waiters = state.storeWaiters.removeValue(forKey: name) ?? []
            perform(state.index.remove(name), &state)
            return (waiters, takeRoomWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        for waiter in room { waiter.resume() }
    }

    /// Removes every entry, the pending writes with them, and starts a new journal.
    public func removeAll() async {
        let (removals, waiters, room) = state.withLock { state in
            guard !state.isClosed else {
                return ([DiskCacheIndex.Action](), [CheckedContinuation<Void, any Error>](), takeRoomWaiters(&state))
            }
            var waiters: [CheckedContinuation<Void, any Error>] = []
            for name in state.pending.dropAll() { waiters += state.storeWaiters.removeValue(forKey: name) ?? [] }
            // The journal is started again under the lock; the files go afterwards, on the queue.
            let actions = state.index.removeAll()
            perform(actions.filter { !$0.isFileRemoval }, &state)
            return (actions.filter(\.isFileRemoval), waiters, takeRoomWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        for waiter in room { waiter.resume() }
        // The files go after the index forgot them; one a concurrent store renamed in meanwhile
        // may go too, which a later read finds missing and forgets.
        await onQueue { [files] in
            for case .removeFile(let name) in removals { files.remove(name) }
        }
    }

    // MARK: - State

    /// The entry count, the files' total size, evictions, damaged entries removed and failed
    /// writes.
    ///
    /// Entries waiting for the writer are counted once their files are in place: call
    /// ``flush()`` first for figures that include them.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.index.count, totalBytes: state.index.totalBytes, evictions: state.index.evictions,
                corruptEntriesRemoved: state.index.corruptEntriesRemoved, failedWrites: state.index.failedWrites)
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
                let target = state.pending.nextSequence - 1
                guard state.pending.oldestSequence.map({ $0 <= target }) == true else { return true }
                state.flushWaiters.append((target, waiter))
                return false
            }
            if isDone { waiter.resume() }
        }
    }

    /// Refuses new writes, waits for the pending ones, then closes the journal and releases the
    /// directory's lock, so another storage may open it.
    ///
    /// Afterwards reads find nothing and writes throw `.closed`.
    /// Dropping the last reference to the storage releases the directory too, once the writer
    /// has written what was pending.
    public func close() async {
        let roomWaiters = state.withLock { state in
            state.isClosing = true
            return takeRoomWaiters(&state)
        }
        // Stores waiting for room find the storage closing and throw.
        for waiter in roomWaiters { waiter.resume() }
        await flush()
        state.withLock { Self.closeFiles(&$0) }
    }

    /// The most bytes of entries that have waited for the writer at once: at most
    /// ``maximumPendingBytes`` for the stores that wait for room.
    package var largestPendingBytes: Int {
        state.withLock { $0.pending.largestBytes }
    }

    /// Holds the writer back until the hold is released (or freed): stores pile up in the
    /// writes waiting meanwhile. For the tests of what happens when they are full, which a
    /// writer that keeps up on a given machine would never show.
    package func holdWriter() -> WriterHold {
        let hold = WriterHold()
        queue.async { hold.wait() }
        return hold
    }

    /// A hold on a storage's writer (``holdWriter()``).
    package final class WriterHold: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)

        /// Lets the writer go on. The writer waits once, so a later call changes nothing.
        package func release() { semaphore.signal() }

        fileprivate func wait() { semaphore.wait() }

        deinit { release() }
    }

    /// Whether the writer is writing the entry under `key` now, for the tests of what happens
    /// to a key meanwhile.
    package func isWriting(key: String) -> Bool {
        let name = EntryName(key: key)
        return state.withLock { $0.pending.write(name)?.isTaken == true }
    }

    // MARK: - Under the lock

    /// Takes `entry` into the pending writes.
    ///
    /// - Throws: `.closed` once ``close()`` has begun.
    private func admit(_ entry: CacheEntry, as name: EntryName, bounded: Bool, _ state: inout State) throws
        -> PendingWrites.Admission
    {
        guard !state.isClosing, !state.isClosed else {
            throw CacheError(.closed, message: "The disk cache at \(directory) was closed; open a new storage.")
        }
        return state.pending.admit(entry, as: name, bounded: bounded)
    }

    /// Changes the index under the lock and carries out what the change asks.
    func change(_ body: (inout State) -> [DiskCacheIndex.Action]) {
        state.withLock { state in perform(body(&state), &state) }
    }

    /// Carries out the index's actions, in order, under the lock.
    func perform(_ actions: [DiskCacheIndex.Action], _ state: inout State) {
        for action in actions {
            switch action {
            case .removeFile(let name):
                files.remove(name)
            case .appendJournal(let records):
                state.journal.append(records)
            case .compactJournal(let names):
                if state.journal.compact(names) { state.index.journalCompacted(lineCount: names.count) }
            }
        }
    }

    /// The stores waiting for room, to be resumed outside the lock so that they try again.
    func takeRoomWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        defer { state.roomWaiters = [] }
        return state.roomWaiters
    }

    private static func closeFiles(_ state: inout State) {
        state.journal.close()
        if state.lockDescriptor >= 0 { FileCalls.closeFile(state.lockDescriptor) }
        state.lockDescriptor = -1
        state.isClosing = true
        state.isClosed = true
    }

    func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }
}

extension DiskCacheIndex.Action {
    /// Whether the action deletes an entry file.
    var isFileRemoval: Bool {
        if case .removeFile = self { true } else { false }
    }
}
