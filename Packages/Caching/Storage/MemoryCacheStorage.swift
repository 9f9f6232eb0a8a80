import Transport

/// Entries in memory, capped by their total size, the least recently used evicted first.
///
/// Sizes are ``CacheEntry/approximateSize``: the body plus the key and header bytes. An entry
/// larger than the whole cap is refused. Safe to use from any task: the state is behind a
/// `PThreadMutex`, held only for dictionary and list updates.
///
/// ```swift
/// let cache = HTTPCache(storage: MemoryCacheStorage(maximumBytes: 16 << 20))
/// ```
public final class MemoryCacheStorage: CacheStorage {
    /// Entries taken out under the lock, to be freed after it: the first one (a store rarely
    /// removes more) without allocating.
    private struct Removed {
        var first: CacheEntry?
        var others: [CacheEntry] = []

        mutating func append(_ stored: CacheEntry) {
            if first == nil { first = stored } else { others.append(stored) }
        }
    }

    private struct State {
        var entries = LRUDictionary<String, CacheEntry>()
        var totalBytes = 0
        var evictions = 0
    }

    /// The most bytes the entries may take together.
    public let maximumBytes: Int
    private let state = PThreadMutex(State())

    /// Creates an empty storage.
    ///
    /// - Parameter maximumBytes: The cap on the entries' total size; 10 MiB by default.
    public init(maximumBytes: Int = 10 << 20) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The entry under `key`, which becomes the most recently used.
    public func entry(forKey key: String) async -> CacheEntry? {
        state.withLock { $0.entries.touch(key) }
    }

    /// The entry under `key`, which becomes the most recently used: always a definite answer.
    public func entryWithoutWaiting(forKey key: String) -> CacheLookup {
        guard let entry = state.withLock({ $0.entries.touch(key) }) else { return .absent }
        return .found(entry)
    }

    /// Stores `entry`, then evicts the least recently used entries beyond the cap.
    ///
    /// The entry is kept as it is: its body shares the response's bytes, nothing is copied or
    /// compressed.
    ///
    /// - Throws: ``CacheError`` with category `.entryTooLarge`
    ///   when the entry alone exceeds the cap (the old entry under its key is removed).
    public func store(_ entry: CacheEntry) async throws {
        try put(entry)
    }

    /// Stores `entry` as ``store(_:)`` does: at once, so it always returns `true`.
    ///
    /// - Throws: ``CacheError`` with category `.entryTooLarge`
    ///   when the entry alone exceeds the cap (the old entry under its key is removed).
    public func storeWithoutWaiting(_ entry: CacheEntry) throws -> Bool {
        try put(entry)
        return true
    }

    private func put(_ entry: CacheEntry) throws {
        let size = entry.approximateSize
        let maximumBytes = maximumBytes
        // The entries that leave are handed out of the lock and freed after it: releasing a
        // response's head and body takes several frees, while other tasks wait for the lock.
        let fits = state.withLock { state -> (fits: Bool, removed: Removed) in
            var removed = Removed()
            guard size <= maximumBytes else {
                if let old = state.entries.removeValue(forKey: entry.key) {
                    state.totalBytes -= old.approximateSize
                    removed.append(old)
                }
                return (false, removed)
            }
            if let old = state.entries.set(entry, forKey: entry.key) {
                state.totalBytes -= old.approximateSize
                removed.append(old)
            }
            state.totalBytes += size
            while state.totalBytes > maximumBytes, let victim = state.entries.removeLeastRecent() {
                state.totalBytes -= victim.value.approximateSize
                state.evictions += 1
                removed.append(victim.value)
            }
            return (true, removed)
        }.fits
        guard fits else {
            throw CacheError(
                .entryTooLarge,
                message:
                    "The response for \(LogRedaction.redactedURL(entry.key)) takes \(size) bytes, more than the memory cache's cap of "
                    + "\(maximumBytes) bytes; it is not stored. Raise MemoryCacheStorage's maximumBytes to keep it."
            )
        }
    }

    /// Removes the entry under `key`.
    public func removeEntry(forKey key: String) async {
        // Returned, so that it is freed after the lock.
        _ = state.withLock { state -> CacheEntry? in
            guard let old = state.entries.removeValue(forKey: key) else { return nil }
            state.totalBytes -= old.approximateSize
            return old
        }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { state in
            state.entries.removeAll()
            state.totalBytes = 0
        }
    }

    /// The entry count, their size, and the evictions so far.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.entries.count, totalBytes: state.totalBytes, evictions: state.evictions)
        }
    }
}
