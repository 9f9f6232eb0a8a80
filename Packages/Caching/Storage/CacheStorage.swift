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

    /// Removes the entry stored under `key`, if any.
    ///
    /// - Parameter key: The key.
    func removeEntry(forKey key: String) async

    /// Removes every entry.
    func removeAll() async

    /// The storage's counters and size.
    func statistics() async -> CacheStorageStatistics
}

/// What a ``CacheStorage`` holds, and what it has thrown away.
public struct CacheStorageStatistics: Sendable, Hashable {
    /// The number of entries stored.
    public var entryCount: Int
    /// The bytes they take, as the storage counts them against its cap (compressed files for
    /// ``DiskCacheStorage``).
    public var totalBytes: Int
    /// Entries removed to stay within the cap, since the storage was created.
    public var evictions: Int
    /// Entries found damaged (a bad checksum, a truncated file, an unknown format) and removed,
    /// since the storage was created.
    public var corruptEntriesRemoved: Int

    /// Creates statistics.
    public init(entryCount: Int = 0, totalBytes: Int = 0, evictions: Int = 0, corruptEntriesRemoved: Int = 0) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.evictions = evictions
        self.corruptEntriesRemoved = corruptEntriesRemoved
    }
}
