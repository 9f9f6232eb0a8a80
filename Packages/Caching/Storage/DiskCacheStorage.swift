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

/// Entries as checksummed records appended to segment files in a directory of their own,
/// written by a background writer in batches, capped in total size with the least recently
/// used evicted first, compacted (and deflated) as segments empty, and found again by a new
/// storage on the same directory after the process restarts.
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
/// - `<16 hex digits>.segment`: records appended one after another, each one entry (its key,
///   response and body) in the format the module's overview describes, with its own length and
///   CRC-32. Segments are numbered in the order they are started; the writer appends to the
///   newest until it reaches an eighth of the cap (between 64 KiB and 4 MiB), then starts
///   another. A segment is never written in the middle.
/// - `journal`: where each entry's record lies and the order of use, as lines
///   `CLEAN <name> <segment> <offset> <length>` (stored), `READ <name>` (used),
///   `MOVE <name> <segment> <offset> <length>` (copied by compaction) and `REMOVE <name>`
///   (removed) after a header line, the name being a 64-bit FNV-1a hash of the key (a record
///   holds its key, so a hash collision reads as a miss, never as another URL's response). It
///   is appended to as things happen and compacted (rewritten to a temporary file, then
///   renamed) when opened and when it has grown to more than twice the lines it needs.
/// - `lock`: held with `flock` while a storage is open, so a second storage on the directory,
///   in this process or another, fails with `.directoryInUse`.
/// - `*.tmp`: a journal being compacted; one found when a storage opens is left over from a
///   crash and is deleted, as are the `*.entry` files of the format before segments (such a
///   cache starts empty).
///
/// ## Room, removal and compaction
///
/// The cap counts the records in use. Removing or replacing an entry, or evicting it, forgets
/// its record at once; its bytes stay in their segment until the segment goes. A segment the
/// writer has left is deleted when none of its records is in use, and compacted when less than
/// half of it is: the writer copies the records still in use to the newest segment, deflating
/// them (zlib, several times smaller for JSON and text; not for media compressed already), and
/// deletes the old one. So the directory holds at most about twice the cap, plus the segment
/// being written. ``removeAll()`` deletes every segment.
///
/// ## Writing behind
///
/// ``storeInBackground(_:)``, which ``HTTPCache`` calls, returns as soon as the entry is in
/// memory: reads answer from there until its record is appended, and one writer, on a serial
/// dispatch queue of the storage's own, appends the entries in batches: one `pwrite` for a
/// batch of small records and one journal write. A record is appended as it is, without
/// deflating, because deflating a small answer costs more than writing it; compaction deflates
/// later, away from the busy moments. The writes of one key are kept in order (a newer entry
/// waiting replaces an older one that has not been written yet), and removing a key cancels
/// its pending write. At most 8 MiB of entries wait (or one larger entry): a store beyond that
/// waits for the writer to catch up. ``store(_:)`` goes through the same writer and returns
/// when its record is appended and journaled, throwing what went wrong.
///
/// ``flush()`` waits for the writes given before it; ``close()`` refuses new writes, waits for
/// every pending one, then releases the directory. Dropping the last reference to the storage
/// does not lose pending writes either: the writer holds the storage until it has none left.
///
/// ## Crashes
///
/// A record is appended, flushed when ``synchronizesToDisk`` is set, and only then named in the
/// journal (whose lines are flushed too, with ``synchronizesToDisk``), so a `kill -9` at any
/// moment leaves every entry whose ``store(_:)`` returned, and at worst part of a record past the
/// last one the journal names, which is never read. Lines that cannot be appended (a full disk)
/// are made up for by rewriting the journal from the index; when that fails too, the journal is
/// deleted, and the next open reads the segments. An entry
/// still waiting for the writer, or appended but not yet journaled, when the process dies is
/// simply not stored: a miss later, as if the response had never been cached. A torn last
/// journal line is ignored; a journal that is missing or not one at all is rebuilt by reading
/// every segment, the newest record of each name winning (entries removed since may then come
/// back). A location past its segment's end is dropped. Without ``synchronizesToDisk``, a power
/// cut may leave a record whose bytes never reached the disk; its checksum fails, and the read
/// forgets it and counts it in ``CacheStorageStatistics/corruptEntriesRemoved``.
///
/// ## Threads
///
/// Reads run on the caller's task: a record is read (`pread`) from the page cache, checked and
/// inflated there, and a lookup never suspends (``entryWithoutWaiting(forKey:)``), nor does a
/// store the writer has room for (``storeWithoutWaiting(_:)``). Writes and compactions run on
/// the writer's queue, never on Swift's cooperative pool, and so does ``removeAll()``. The
/// index, the segments' removals and the journal lines change together under a
/// `PThreadMutex`, held for those few short system calls, so the index changes in the order
/// the files do; rewriting the journal, once it holds twice the lines it needs, happens there
/// too, on the thread whose line crossed the threshold. Two processes must not share a directory, and the lock makes sure they do
/// not.
///
/// ## Its parts
///
/// The storage is a thin shell that owns the lock, the writer's queue and the callers waiting
/// for it. What it knows is in two values without I/O, whose changes return what to do to the
/// files: the index of records (locations, order of use, each segment's use, the cap,
/// eviction, compaction, the counters) and the writes waiting for the writer. The journal's
/// text, the journal file, and the segment files (paths, reading a record, appending,
/// recovery's listing and scan) each have a type of their own.
public final class DiskCacheStorage: CacheStorage {
    /// Everything that changes, behind the lock.
    struct State {
        var index: DiskCacheIndex
        var pending: PendingWrites
        var journal: JournalFile
        var lockDescriptor: Int32
        /// The segment the writer appends to; only the storage's queue touches it.
        var appending: DiskCacheFiles.Appending?
        /// The number of the next segment the writer starts.
        var nextSegment: UInt64
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

        /// Closes the segment the writer appends to, if any: the next append starts a new one.
        mutating func closeAppendingSegment() {
            if let appending { FileCalls.closeFile(appending.descriptor) }
            appending = nil
        }
    }

    /// The most bytes of entries that wait for the writer (or one entry, whatever its size).
    package static let maximumPendingBytes = PendingWrites.maximumBytes

    /// The directory the storage owns.
    public let directory: String
    /// The most bytes the records in use may take together.
    public let maximumBytes: Int
    /// Whether each append, and the directory after a segment is started, is flushed with
    /// `fsync` before the journal names what was appended.
    public let synchronizesToDisk: Bool

    /// The segment files.
    let files: DiskCacheFiles
    /// Where the writer, and the work that waits for the disk, run.
    let queue = DispatchQueue(label: "parley.cache.disk")
    let state: PThreadMutex<State>

    /// Opens (creating if needed) the cache in `directory`.
    ///
    /// Opening reads the journal and lists the directory, deletes temporary files a crash left,
    /// compacts the journal, and evicts entries beyond `maximumBytes` (the cap may have been
    /// lowered since the last run). It blocks the calling thread for that long; compacting the
    /// segments that leaves less than half in use is left to the writer.
    ///
    /// - Parameters:
    ///   - directory: A directory for the cache alone; created with its parents when missing.
    ///   - maximumBytes: The cap on the records' total size; 50 MiB by default.
    ///   - synchronizesToDisk: Whether each append is flushed (`fsync`) before the journal
    ///     names it, so an entry survives a power cut; `false` by default, because a damaged
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
                    journal: journal, lockDescriptor: lockDescriptor, nextSegment: opened.nextSegment))
            for number in opened.compactions { queue.async { self.compact(number) } }
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

    /// Where the record of the entry under `key` lies, for the tests that damage one: its
    /// segment's path, and its offset and length there; `nil` while it waits for the writer.
    package func recordLocation(forKey key: String) -> (path: String, offset: Int, length: Int)? {
        let name = EntryName(key: key)
        guard let location = state.withLock({ $0.index.record(name)?.location }) else { return nil }
        return (files.path(ofSegment: location.segment), location.offset, location.length)
    }

    // MARK: - Reading

    /// The entry under `key`, which becomes the most recently used; a damaged record is forgotten,
    /// counted, and read as `nil`. An entry waiting for the writer is answered from memory.
    public func entry(forKey key: String) async -> CacheEntry? {
        if case .found(let entry) = entryWithoutWaiting(forKey: key) { return entry }
        return nil
    }

    /// The entry under `key`, as ``entry(forKey:)`` returns it, on the caller's thread: always a
    /// definite answer. A key the index does not know costs a lookup under the lock and nothing
    /// else; a record is read outside the lock.
    public func entryWithoutWaiting(forKey key: String) -> CacheLookup {
        let name = EntryName(key: key)
        enum Place {
            case nowhere
            case memory(CacheEntry)
            case segment(DiskCacheIndex.Record)
        }
        let place = state.withLock { state -> Place in
            guard !state.isClosed else { return .nowhere }
            if let pending = state.pending.write(name) { return .memory(pending.entry) }
            return state.index.record(name).map { .segment($0) } ?? .nowhere
        }
        let record: DiskCacheIndex.Record
        switch place {
        case .nowhere: return .absent
        case .memory(let entry): return entry.key == key ? .found(entry) : .absent
        case .segment(let known): record = known
        }
        // Read outside the lock: a segment is only appended to, so the record's bytes stay as
        // they were written until the segment is deleted, and the record says which write the
        // index knew.
        let bytes: Data?
        do {
            bytes = try files.read(record.location)
        } catch {
            return .absent
        }
        guard let bytes else {
            // Moved by compaction meanwhile (its old segment deleted): read where it went.
            let moved = state.withLock { state in
                state.isClosed ? nil : state.index.record(name).flatMap { $0 == record ? nil : $0 }
            }
            if let moved, let bytes = try? files.read(moved.location) {
                return answer(bytes, for: key, as: name, from: moved)
            }
            // Removed behind the storage's back.
            change { $0.index.readFoundNoFile(name, record: record) }
            return .absent
        }
        return answer(bytes, for: key, as: name, from: record)
    }

    /// The entry in `bytes`, read for `key` from `record`: the record becomes the most recently
    /// used; a damaged one is forgotten and counted.
    private func answer(_ bytes: Data, for key: String, as name: EntryName, from record: DiskCacheIndex.Record)
        -> CacheLookup
    {
        switch EntryFile.decode(bytes) {
        case .success(let entry):
            change { $0.index.read(name) }
            // Another key with the same hash: not this key's entry, and not damaged.
            return entry.key == key ? .found(entry) : .absent
        case .failure:
            // A newer write may have replaced the damaged record since it was read.
            change { $0.index.readFoundDamage(name, record: record) }
            return .absent
        }
    }

    // MARK: - Writing

    /// Writes `entry` atomically, then evicts the least recently used entries beyond the cap;
    /// returns when its record is appended and journaled (and flushed first, with
    /// ``synchronizesToDisk``).
    ///
    /// The write goes through the storage's writer, after the writes already waiting for it,
    /// so that the writes of one key stay in order.
    ///
    /// - Throws: ``CacheError``: `.entryTooLarge` when the
    ///   record alone exceeds the cap, `.writeFailed`
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

    /// Keeps `entry` in memory, where reads find it at once, and leaves writing its record to the
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

    /// Removes every entry, the pending writes with them, and every segment, and starts a new
    /// journal.
    ///
    /// Runs on the writer's queue, between two batches, so that no record written meanwhile
    /// can land in a segment that is being deleted.
    public func removeAll() async {
        let (waiters, room) = await onQueueReturning { [self] in
            state.withLock { state in
                guard !state.isClosed else {
                    return ([CheckedContinuation<Void, any Error>](), takeRoomWaiters(&state))
                }
                var waiters: [CheckedContinuation<Void, any Error>] = []
                for name in state.pending.dropAll() { waiters += state.storeWaiters.removeValue(forKey: name) ?? [] }
                state.closeAppendingSegment()
                perform(state.index.removeAll(), &state)
                return (waiters, takeRoomWaiters(&state))
            }
        }
        for waiter in waiters { waiter.resume() }
        for waiter in room { waiter.resume() }
    }

    // MARK: - State

    /// The entry count, the records' total size, evictions, damaged entries removed and failed
    /// writes.
    ///
    /// Entries waiting for the writer are counted once their records are appended: call
    /// ``flush()`` first for figures that include them.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.index.count, totalBytes: state.index.totalBytes, evictions: state.index.evictions,
                corruptEntriesRemoved: state.index.corruptEntriesRemoved, failedWrites: state.index.failedWrites)
        }
    }

    /// Waits until every entry stored before the call has its record appended (or was replaced by
    /// a newer entry that has, or was removed).
    ///
    /// Call it when the segments must be complete, say before copying the directory; ``close()``
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
        // On the queue: a compaction under way finishes first.
        await onQueue { [self] in state.withLock { Self.closeFiles(&$0) } }
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

    /// Waits until the writer's queue has run what was queued before the call (batches,
    /// compactions), for the tests of compaction.
    package func waitForQueuedWork() async {
        await onQueue {}
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

    /// Changes the index under the lock and carries out what the change asks; nothing, once the
    /// storage is closed (its files are, and what it knows no longer matters).
    func change(_ body: (inout State) -> [DiskCacheIndex.Action]) {
        state.withLock { state in
            guard !state.isClosed else { return }
            perform(body(&state), &state)
        }
    }

    /// Carries out the index's actions, in order, under the lock.
    func perform(_ actions: [DiskCacheIndex.Action], _ state: inout State) {
        for action in actions {
            switch action {
            case .removeSegment(let number):
                files.removeSegment(number)
            case .appendJournal(let records):
                // Lines that did not reach the journal are made up for by rewriting it whole
                // from the index; when even that fails, the journal is deleted, and the next
                // open reads the segments rather than trust a journal that misses lines.
                guard !state.journal.append(records), !state.isClosed else { continue }
                rewriteJournal(state.index.entriesFromLeastRecent, linesWereLost: true, &state)
            case .compactJournal(let entries):
                rewriteJournal(entries, linesWereLost: false, &state)
            case .compactSegment(let number):
                queue.async { self.compact(number) }
            }
        }
    }

    /// Rewrites the journal as `entries`. When that fails, a journal that still has every line
    /// is kept (it is only longer than it needs to be); one that `linesWereLost` from is deleted.
    private func rewriteJournal(_ entries: [DiskCacheIndex.Entry], linesWereLost: Bool, _ state: inout State) {
        if state.journal.compact(entries) {
            state.index.journalCompacted(lineCount: entries.count)
        } else {
            if linesWereLost { state.journal.discard() }
            state.index.journalCompactionFailed()
        }
    }

    /// The stores waiting for room, to be resumed outside the lock so that they try again.
    func takeRoomWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        defer { state.roomWaiters = [] }
        return state.roomWaiters
    }

    private static func closeFiles(_ state: inout State) {
        state.journal.close()
        state.closeAppendingSegment()
        if state.lockDescriptor >= 0 { FileCalls.closeFile(state.lockDescriptor) }
        state.lockDescriptor = -1
        state.isClosing = true
        state.isClosed = true
    }

    func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await onQueueReturning(work)
    }

    /// Runs `work` on the queue and returns what it returns.
    func onQueueReturning<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
