/// Where an ``HTTPCache`` keeps its entries: a key-value store with a size cap and
/// least-recently-used eviction.
///
/// The module has two: ``MemoryCacheStorage`` and ``DiskCacheStorage``. A storage of your own
/// must be safe to call from any task at once, must never hand back an entry other than one
/// stored under the key asked for, and should read a damaged entry as absent (removing it and
/// counting it in ``CacheStorageStatistics/corruptEntriesRemoved``) rather than fail.
public protocol CacheStorage: Sendable {
    /// The entry stored under `key`, or `nil`; a read makes the entry the most recently used.
    ///
    /// - Parameter key: The key, a request's URL.
    /// - Returns: The entry, or `nil` when there is none or it could not be read back whole.
    func entry(forKey key: String) async -> CacheEntry?

    /// Stores `entry` under its ``CacheEntry/key``, replacing any entry there, then evicts the
    /// least recently used entries until the storage is within its cap.
    ///
    /// - Parameter entry: The entry.
    /// - Throws: ``CacheError`` when it cannot be stored (larger than the whole cap, or the
    ///   disk refused it); the entry that was there before is then removed.
    func store(_ entry: CacheEntry) async throws

    /// Stores `entry` as ``store(_:)`` does, but may return as soon as the entry can be read
    /// back, and finish the slow part of the work (writing a file) in the background: what
    /// ``HTTPCache`` calls, so that no response waits for a disk.
    ///
    /// The default implementation calls ``store(_:)``. A storage that writes behind answers
    /// reads of the entry from memory until its write is done, keeps the writes of one key in
    /// order, bounds what waits in memory, and finishes what waits before it closes, as
    /// ``DiskCacheStorage`` does.
    ///
    /// - Parameter entry: The entry.
    /// - Throws: ``CacheError`` for what is known at once (the storage is closed, the entry is
    ///   larger than the whole cap). A failure of the work left for later is not thrown: the
    ///   entry is then not stored, the old one is removed, and the storage counts it in
    ///   ``CacheStorageStatistics/failedWrites``.
    func storeInBackground(_ entry: CacheEntry) async throws

    /// The entry stored under `key` when the storage can tell without suspending, as
    /// ``entry(forKey:)`` would return it; what ``HTTPCache`` asks first on every request, so
    /// that a miss costs no `async` call.
    ///
    /// The default implementation answers ``CacheLookup/unknown``, which sends the cache to
    /// ``entry(forKey:)``. ``MemoryCacheStorage`` and ``DiskCacheStorage`` always answer: both
    /// look their index up under a lock, and the disk storage reads a record on the caller's
    /// thread, from the page cache, as ``entry(forKey:)`` does.
    ///
    /// - Parameter key: The key, a request's URL.
    /// - Returns: The entry, its absence, or ``CacheLookup/unknown``.
    func entryWithoutWaiting(forKey key: String) -> CacheLookup

    /// Takes `entry` as ``storeInBackground(_:)`` does, when the storage can without
    /// suspending; what ``HTTPCache`` calls first for every answer it stores, so that storing
    /// costs no `async` call.
    ///
    /// The default implementation takes nothing and returns `false`, which sends the cache to
    /// ``storeInBackground(_:)``. ``MemoryCacheStorage`` stores at once; ``DiskCacheStorage``
    /// hands the entry to its writer unless the writes waiting for it are full, when it
    /// returns `false` and the cache waits in ``storeInBackground(_:)`` for room.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: `true` when the entry was taken; `false` when the caller must call
    ///   ``storeInBackground(_:)`` instead.
    /// - Throws: What ``storeInBackground(_:)`` throws at once.
    func storeWithoutWaiting(_ entry: CacheEntry) throws -> Bool

    /// Removes the entry stored under `key`, if any.
    ///
    /// - Parameter key: The key.
    func removeEntry(forKey key: String) async

    /// Removes every entry.
    func removeAll() async

    /// The storage's counters and size.
    func statistics() async -> CacheStorageStatistics
}

extension CacheStorage {
    /// Calls ``store(_:)``: a storage with nothing slow to do stores at once.
    ///
    /// - Parameter entry: The entry.
    /// - Throws: What ``store(_:)`` throws.
    public func storeInBackground(_ entry: CacheEntry) async throws {
        try await store(entry)
    }

    /// Answers ``CacheLookup/unknown``: a storage that does not say otherwise is asked through
    /// ``entry(forKey:)``.
    ///
    /// - Parameter key: The key.
    /// - Returns: ``CacheLookup/unknown``.
    public func entryWithoutWaiting(forKey key: String) -> CacheLookup {
        .unknown
    }

    /// Takes nothing: a storage that does not say otherwise is given its entries through
    /// ``storeInBackground(_:)``.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: `false`.
    public func storeWithoutWaiting(_ entry: CacheEntry) throws -> Bool {
        false
    }
}

/// What a ``CacheStorage`` holds, and what it has thrown away.
public struct CacheStorageStatistics: Sendable, Hashable {
    /// The number of entries stored.
    public var entryCount: Int
    /// The bytes they take, as the storage counts them against its cap (the records in use for
    /// ``DiskCacheStorage``).
    public var totalBytes: Int
    /// Entries removed to stay within the cap, since the storage was created.
    public var evictions: Int
    /// Entries found damaged (a bad checksum, a truncated record, an unknown format) and removed,
    /// since the storage was created.
    public var corruptEntriesRemoved: Int
    /// Entries given to ``CacheStorage/storeInBackground(_:)`` whose later write failed (a
    /// full disk, a permission, a record larger than the cap), since the storage was
    /// created; always 0 for a storage that writes before returning.
    public var failedWrites: Int

    /// Creates statistics.
    ///
    /// - Parameters:
    ///   - entryCount: The number of entries; 0 by default.
    ///   - totalBytes: The bytes they take; 0 by default.
    ///   - evictions: Entries removed to stay within the cap; 0 by default.
    ///   - corruptEntriesRemoved: Damaged entries removed; 0 by default.
    ///   - failedWrites: Writes left for later that failed; 0 by default.
    public init(
        entryCount: Int = 0, totalBytes: Int = 0, evictions: Int = 0, corruptEntriesRemoved: Int = 0,
        failedWrites: Int = 0
    ) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.evictions = evictions
        self.corruptEntriesRemoved = corruptEntriesRemoved
        self.failedWrites = failedWrites
    }
}
