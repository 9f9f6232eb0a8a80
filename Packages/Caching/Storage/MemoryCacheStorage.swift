import Synchronization
import Transport

/// Entries in memory, capped by their total size, the least recently used evicted first.
///
/// Sizes are ``CacheEntry/approximateSize``: the body plus the key and header bytes. An entry
/// larger than the whole cap is refused. Safe to use from any task: the state is behind a
/// `Mutex`, held only for dictionary and list updates.
///
/// ```swift
/// let cache = HTTPCache(storage: MemoryCacheStorage(maximumBytes: 16 << 20))
/// ```
public final class MemoryCacheStorage: CacheStorage {
    private struct State {
        var entries: [String: CacheEntry] = [:]
        var sizes: [String: Int] = [:]
        var order = LRUList<String>()
        var totalBytes = 0
        var evictions = 0
    }

    /// The most bytes the entries may take together.
    public let maximumBytes: Int
    private let state = Mutex(State())

    /// Creates an empty storage.
    ///
    /// - Parameter maximumBytes: The cap on the entries' total size; 10 MiB by default.
    public init(maximumBytes: Int = 10 << 20) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The entry under `key`, which becomes the most recently used.
    public func entry(forKey key: String) async -> CacheEntry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.order.touch(key)
            return entry
        }
    }

    /// Stores `entry`, then evicts the least recently used entries beyond the cap.
    ///
    /// - Throws: ``CacheError`` with category ``CacheError/Category-swift.struct/entryTooLarge``
    ///   when the entry alone exceeds the cap (the old entry under its key is removed).
    public func store(_ entry: CacheEntry) async throws {
        let size = entry.approximateSize
        let maximumBytes = maximumBytes
        try state.withLock { state in
            Self.remove(entry.key, from: &state)
            guard size <= maximumBytes else {
                throw CacheError(
                    .entryTooLarge,
                    message:
                        "The response for \(LogRedaction.redactedURL(entry.key)) takes \(size) bytes, more than the memory cache's cap of "
                        + "\(maximumBytes) bytes; it is not stored. Raise MemoryCacheStorage's maximumBytes to keep it."
                )
            }
            state.entries[entry.key] = entry
            state.sizes[entry.key] = size
            state.order.touch(entry.key)
            state.totalBytes += size
            while state.totalBytes > maximumBytes, let victim = state.order.leastRecent {
                Self.remove(victim, from: &state)
                state.evictions += 1
            }
        }
    }

    /// Removes the entry under `key`.
    public func removeEntry(forKey key: String) async {
        state.withLock { Self.remove(key, from: &$0) }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { state in
            let evictions = state.evictions
            state = State()
            state.evictions = evictions
        }
    }

    /// The entry count, their size, and the evictions so far.
    public func statistics() async -> CacheStorageStatistics {
        state.withLock { state in
            CacheStorageStatistics(
                entryCount: state.entries.count, totalBytes: state.totalBytes, evictions: state.evictions)
        }
    }

    private static func remove(_ key: String, from state: inout State) {
        guard state.entries.removeValue(forKey: key) != nil else { return }
        state.totalBytes -= state.sizes.removeValue(forKey: key) ?? 0
        state.order.remove(key)
    }
}
