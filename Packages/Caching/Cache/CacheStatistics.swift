/// What an ``HTTPCache`` has done since it was created, and what its storage holds.
public struct CacheStatistics: Sendable, Hashable {
    /// `GET` and `HEAD` requests answered from the cache without sending anything.
    public var hits: Int
    /// `GET` and `HEAD` requests the network answered (a `304` excepted).
    public var misses: Int
    /// Stored responses the server confirmed with `304 Not Modified`.
    public var revalidations: Int
    /// Entries handed to the storage: new responses, and those a `304` refreshed (a disk
    /// storage may write them a moment later).
    public var stores: Int
    /// Entries the storage removed to stay within its cap.
    public var evictions: Int
    /// Entries the storage found damaged, removed, and read as misses.
    public var corruptEntriesRemoved: Int
    /// The number of entries stored now.
    public var entryCount: Int
    /// The bytes they take, as the storage counts them.
    public var totalBytes: Int
    /// Entries the storage accepted but could not write later (a full disk, a permission); see
    /// ``CacheStorageStatistics/failedWrites``.
    public var failedWrites: Int

    /// Creates statistics; every figure is 0 by default.
    public init(
        hits: Int = 0, misses: Int = 0, revalidations: Int = 0, stores: Int = 0, evictions: Int = 0,
        corruptEntriesRemoved: Int = 0, entryCount: Int = 0, totalBytes: Int = 0, failedWrites: Int = 0
    ) {
        self.hits = hits
        self.misses = misses
        self.revalidations = revalidations
        self.stores = stores
        self.evictions = evictions
        self.corruptEntriesRemoved = corruptEntriesRemoved
        self.entryCount = entryCount
        self.totalBytes = totalBytes
        self.failedWrites = failedWrites
    }
}
