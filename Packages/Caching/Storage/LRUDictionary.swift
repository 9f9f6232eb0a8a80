/// Values by key in order of use, most recent first: an open-addressing hash table of slot
/// numbers over slots linked into a list by index, so that a lookup, an update, a move to the
/// front and a removal each hash the key once and allocate nothing once the arrays have grown
/// (listing the keys is O(n)).
///
/// Both storages keep their index in one: the memory storage its entries by URL, the disk
/// storage what it knows of each file by name. Hashing is most of what an index operation
/// costs, so the key is hashed once per operation with ``LRUKey/lruHash`` (for a URL, FNV-1a's
/// step on eight bytes at a time and a finaliser, where `Hasher`'s SipHash costs several times
/// that), and a slot keeps its key's hash: removing the least recently used entry, as every
/// store into a full cache does, hashes nothing.
///
/// A slot's hash and its two links live in an array of plain values, apart from the keys and
/// the values: probing, moving a slot to the front and unlinking one read and write integers
/// alone, and a key or a value is touched (its references counted) only where it is compared,
/// stored or handed out.
struct LRUDictionary<Key: LRUKey, Value: Sendable>: Sendable {
    /// Where a slot is in the table and the order of use.
    private struct Link: Sendable {
        /// The key's ``LRUKey/lruHash``.
        var hash: UInt64
        /// The next more recently used slot, or -1.
        var newer: Int
        /// The next less recently used slot, or -1.
        var older: Int
    }

    /// Slot numbers by hash, -1 where empty; a power of two long, at most half full, probed
    /// linearly.
    private var buckets: [Int] = []
    /// 64 minus the number of bits of a bucket's number.
    private var shift: UInt64 = 64
    /// Each slot's hash and links; a free slot's are left as they were.
    private var links: [Link] = []
    /// Each slot's key, `nil` in a free slot.
    private var keys: [Key?] = []
    /// Each slot's value, `nil` in a free slot.
    private var values: [Value?] = []
    private var freeSlots: [Int] = []
    /// The most recently used slot, or -1.
    private var newest = -1
    /// The least recently used slot, or -1.
    private var oldest = -1

    /// The number of keys.
    private(set) var count = 0

    /// Whether `key` is there.
    func contains(_ key: Key) -> Bool { find(key, hash: key.lruHash).slot != nil }

    /// The value of `key`, leaving the order as it is.
    func peek(_ key: Key) -> Value? {
        guard let slot = find(key, hash: key.lruHash).slot else { return nil }
        return values[slot]
    }

    /// The least recently used key and its value.
    var leastRecent: (key: Key, value: Value)? {
        guard oldest >= 0, let key = keys[oldest], let value = values[oldest] else { return nil }
        return (key, value)
    }

    /// Every key with its value, least recently used first.
    var entriesFromLeastRecent: [(key: Key, value: Value)] {
        var entries: [(key: Key, value: Value)] = []
        entries.reserveCapacity(count)
        var index = oldest
        while index >= 0, let key = keys[index], let value = values[index] {
            entries.append((key, value))
            index = links[index].newer
        }
        return entries
    }

    /// Replaces the value of `key`, leaving the order as it is.
    ///
    /// - Returns: The value it replaced, or `nil` (and nothing changes) when `key` is not there.
    @discardableResult
    mutating func replaceValue(_ value: Value, forKey key: Key) -> Value? {
        guard let index = find(key, hash: key.lruHash).slot else { return nil }
        return exchange(&values[index], with: value)
    }

    /// The value of `key`, which becomes the most recently used.
    mutating func touch(_ key: Key) -> Value? {
        guard let index = find(key, hash: key.lruHash).slot else { return nil }
        moveToNewest(index)
        return values[index]
    }

    /// Sets the value of `key` and makes it the most recently used.
    ///
    /// - Returns: The value it replaced, if any.
    @discardableResult
    mutating func set(_ value: Value, forKey key: Key) -> Value? {
        let hash = key.lruHash
        let found = find(key, hash: hash)
        if let index = found.slot {
            moveToNewest(index)
            return exchange(&values[index], with: value)
        }
        let index = insert(key, value, hash: hash, at: found.bucket)
        linkAsNewest(index)
        return nil
    }

    /// Adds `key` as the least recently used; a key already there keeps its value and place.
    mutating func insertAsLeastRecent(_ value: Value, forKey key: Key) {
        let hash = key.lruHash
        let found = find(key, hash: hash)
        guard found.slot == nil else { return }
        let index = insert(key, value, hash: hash, at: found.bucket)
        links[index].newer = oldest
        if oldest >= 0 { links[oldest].older = index }
        oldest = index
        if newest < 0 { newest = index }
    }

    /// Removes `key`.
    ///
    /// - Returns: Its value, if it was there.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        let found = find(key, hash: key.lruHash)
        guard let index = found.slot else { return nil }
        removeBucket(found.bucket)
        return free(index).value
    }

    /// Removes the least recently used key.
    ///
    /// - Returns: It and its value, if there was any.
    mutating func removeLeastRecent() -> (key: Key, value: Value)? {
        let index = oldest
        guard index >= 0 else { return nil }
        removeBucket(bucket(ofSlot: index, hash: links[index].hash))
        let (key, value) = free(index)
        guard let key, let value else { return nil }
        return (key, value)
    }

    /// Removes every key.
    mutating func removeAll() {
        self = LRUDictionary()
    }

    // MARK: - The table

    /// The slot holding `key`, if any, and the bucket where it is, or where it would go.
    private func find(_ key: Key, hash: UInt64) -> (slot: Int?, bucket: Int) {
        guard !buckets.isEmpty else { return (nil, -1) }
        let mask = buckets.count - 1
        var bucket = home(hash)
        while true {
            let index = buckets[bucket]
            if index < 0 { return (nil, bucket) }
            // The key is compared only when the hashes agree.
            if links[index].hash == hash, keys[index] == key { return (index, bucket) }
            bucket = (bucket + 1) & mask
        }
    }

    /// The bucket that points at slot `index`, whose key hashes to `hash`.
    private func bucket(ofSlot index: Int, hash: UInt64) -> Int {
        let mask = buckets.count - 1
        var bucket = home(hash)
        while buckets[bucket] != index { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// Puts `key` and `value` in a slot of their own, unlinked, pointed at from `bucket` (found
    /// empty by ``find(_:hash:)``), growing the table first when it would be more than half full.
    private mutating func insert(_ key: Key, _ value: Value, hash: UInt64, at bucket: Int) -> Int {
        var bucket = bucket
        if (count + 1) * 2 > buckets.count {
            grow()
            bucket = emptyBucket(for: hash)
        }
        let index: Int
        let link = Link(hash: hash, newer: -1, older: -1)
        if let free = freeSlots.popLast() {
            index = free
            links[index] = link
            keys[index] = key
            values[index] = value
        } else {
            index = links.count
            links.append(link)
            keys.append(key)
            values.append(value)
        }
        buckets[bucket] = index
        count += 1
        return index
    }

    private func emptyBucket(for hash: UInt64) -> Int {
        let mask = buckets.count - 1
        var bucket = home(hash)
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// The first bucket `hash` probes: the top bits of the hash times 2⁶⁴/φ (Fibonacci hashing),
    /// which depend on every bit of it, where a hash's lowest bits alone may spread poorly.
    private func home(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let size = max(16, buckets.count * 2)
        buckets = [Int](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        for index in links.indices where keys[index] != nil {
            buckets[emptyBucket(for: links[index].hash)] = index
        }
    }

    /// Empties `bucket`, moving back the entries after it that probing would no longer reach
    /// (deletion without tombstones, for linear probing).
    private mutating func removeBucket(_ bucket: Int) {
        let mask = buckets.count - 1
        var hole = bucket
        var next = bucket
        buckets[hole] = -1
        while true {
            next = (next + 1) & mask
            let index = buckets[next]
            guard index >= 0 else { return }
            let start = home(links[index].hash)
            // Moved into the hole unless the bucket it starts from lies cyclically in (hole, next].
            let reachable = hole <= next ? (hole < start && start <= next) : (hole < start || start <= next)
            if !reachable {
                buckets[hole] = index
                buckets[next] = -1
                hole = next
            }
        }
    }

    // MARK: - The order of use

    /// Unlinks slot `index` and makes it free.
    ///
    /// - Returns: The key and the value it held, moved out.
    private mutating func free(_ index: Int) -> (key: Key?, value: Value?) {
        unlink(index)
        freeSlots.append(index)
        count -= 1
        return (keys[index].take(), values[index].take())
    }

    private mutating func moveToNewest(_ index: Int) {
        guard index != newest else { return }
        unlink(index)
        linkAsNewest(index)
    }

    private mutating func unlink(_ index: Int) {
        let link = links[index]
        if link.newer >= 0 { links[link.newer].older = link.older } else { newest = link.older }
        if link.older >= 0 { links[link.older].newer = link.newer } else { oldest = link.newer }
        links[index].newer = -1
        links[index].older = -1
    }

    private mutating func linkAsNewest(_ index: Int) {
        links[index].older = newest
        links[index].newer = -1
        if newest >= 0 { links[newest].newer = index }
        newest = index
        if oldest < 0 { oldest = index }
    }
}

/// A key of an ``LRUDictionary``: equatable, with a 64-bit hash of its own.
protocol LRUKey: Equatable, Sendable {
    /// A hash whose low bits spread well: keys that are equal hash alike.
    var lruHash: UInt64 { get }
}

extension String: LRUKey {
    /// ``FNV1a/wordHash(_:)`` of the UTF-8 bytes.
    var lruHash: UInt64 {
        if let hash = utf8.withContiguousStorageIfAvailable({ FNV1a.wordHash(UnsafeRawBufferPointer($0)) }) {
            return hash
        }
        var copy = self
        return copy.withUTF8 { FNV1a.wordHash(UnsafeRawBufferPointer($0)) }
    }
}

extension UInt64: LRUKey {
    /// The value itself: the table mixes every hash before it uses it.
    var lruHash: UInt64 { self }
}

/// The 64-bit FNV-1a hash: the disk storage's file names and the index's string hash.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* prime
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes { hash = step(hash, byte) }
        return hash
    }

    /// A hash for the index alone, eight bytes at a time: each little-endian word of `bytes`
    /// folded in as FNV-1a folds a byte, then the last few bytes and the count, then
    /// MurmurHash3's finaliser, so that every bit of the result depends on every byte. About
    /// a quarter of ``hash(_:)``'s instructions for a URL. File names keep ``hash(_:)``: they
    /// are on disk.
    static func wordHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = offsetBasis
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* prime
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* prime
        hash ^= UInt64(bytes.count)
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        return hash ^ (hash >> 33)
    }
}
