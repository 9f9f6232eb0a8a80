/// What a ``CacheStorage`` can say about a key without suspending: the answer to
/// ``CacheStorage/entryWithoutWaiting(forKey:)``, which ``HTTPCache`` asks first on every
/// request, so that a miss costs no `async` call into the storage.
public enum CacheLookup: Sendable {
    /// The entry stored under the key, which has become the most recently used.
    case found(CacheEntry)
    /// Nothing is stored under the key (or what is there could not be read back whole).
    case absent
    /// The storage cannot tell without waiting: ask ``CacheStorage/entry(forKey:)``.
    case unknown
}
