/// Values by key in order of use, most recent first: a dictionary from key to slot, and the
/// slots in an array linked into a list by index, so that a lookup, an update, a move to the
/// front and a removal each hash the key once and allocate nothing once the arrays have grown
/// (listing the keys is O(n)).
///
/// Both storages keep their index in one: the memory storage its entries, the disk storage
/// what it knows of each file. Hashing a URL of a few dozen bytes is most of what a store
/// costs in memory, so the key is hashed once per operation, not once per structure.
struct LRUDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key
        var value: Value
        /// The next more recently used slot, or -1.
        var newer: Int
        /// The next less recently used slot, or -1.
        var older: Int
    }

    private var slotsByKey: [Key: Int] = [:]
    private var slots: [Slot?] = []
    private var freeSlots: [Int] = []
    /// The most recently used slot, or -1.
    private var newest = -1
    /// The least recently used slot, or -1.
    private var oldest = -1

    /// The number of keys.
    var count: Int { slotsByKey.count }

    /// Whether `key` is there.
    func contains(_ key: Key) -> Bool { slotsByKey[key] != nil }

    /// The value of `key`, leaving the order as it is.
    func peek(_ key: Key) -> Value? {
        guard let slot = slotsByKey[key] else { return nil }
        return slots[slot]?.value
    }

    /// The least recently used key and its value.
    var leastRecent: (key: Key, value: Value)? {
        guard oldest >= 0, let slot = slots[oldest] else { return nil }
        return (slot.key, slot.value)
    }

    /// Every key, least recently used first.
    var keysFromLeastRecent: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var index = oldest
        while index >= 0, let slot = slots[index] {
            keys.append(slot.key)
            index = slot.newer
        }
        return keys
    }

    /// The value of `key`, which becomes the most recently used.
    mutating func touch(_ key: Key) -> Value? {
        guard let index = slotsByKey[key] else { return nil }
        moveToNewest(index)
        return slots[index]?.value
    }

    /// Sets the value of `key` and makes it the most recently used.
    ///
    /// - Returns: The value it replaced, if any.
    @discardableResult
    mutating func set(_ value: Value, forKey key: Key) -> Value? {
        let candidate = freeSlots.last ?? slots.count
        var isNew = false
        // One hash: the dictionary's `default:` subscript finds or inserts in one lookup.
        let index = Self.findOrInsert(&slotsByKey[key, default: -1], candidate: candidate, isNew: &isNew)
        if isNew {
            let slot = Slot(key: key, value: value, newer: -1, older: -1)
            if candidate == slots.count {
                slots.append(slot)
            } else {
                freeSlots.removeLast()
                slots[candidate] = slot
            }
            linkAsNewest(index)
            return nil
        }
        let old = slots[index]?.value
        slots[index]?.value = value
        moveToNewest(index)
        return old
    }

    /// Adds `key` as the least recently used; a key already there keeps its value and place.
    mutating func insertAsLeastRecent(_ value: Value, forKey key: Key) {
        guard slotsByKey[key] == nil else { return }
        let index = freeSlots.popLast() ?? slots.count
        let slot = Slot(key: key, value: value, newer: oldest, older: -1)
        if index == slots.count { slots.append(slot) } else { slots[index] = slot }
        slotsByKey[key] = index
        if oldest >= 0 { slots[oldest]?.older = index }
        oldest = index
        if newest < 0 { newest = index }
    }

    /// Removes `key`.
    ///
    /// - Returns: Its value, if it was there.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = slotsByKey.removeValue(forKey: key) else { return nil }
        return free(index)
    }

    /// Removes the least recently used key.
    ///
    /// - Returns: It and its value, if there was any.
    mutating func removeLeastRecent() -> (key: Key, value: Value)? {
        guard oldest >= 0, let slot = slots[oldest] else { return nil }
        slotsByKey.removeValue(forKey: slot.key)
        _ = free(oldest)
        return (slot.key, slot.value)
    }

    /// Removes every key.
    mutating func removeAll() {
        self = LRUDictionary()
    }

    private static func findOrInsert(_ stored: inout Int, candidate: Int, isNew: inout Bool) -> Int {
        if stored < 0 {
            stored = candidate
            isNew = true
        }
        return stored
    }

    private mutating func free(_ index: Int) -> Value? {
        unlink(index)
        let value = slots[index]?.value
        slots[index] = nil
        freeSlots.append(index)
        return value
    }

    private mutating func moveToNewest(_ index: Int) {
        guard index != newest else { return }
        unlink(index)
        linkAsNewest(index)
    }

    private mutating func unlink(_ index: Int) {
        guard let slot = slots[index] else { return }
        if slot.newer >= 0 { slots[slot.newer]?.older = slot.older } else { newest = slot.older }
        if slot.older >= 0 { slots[slot.older]?.newer = slot.newer } else { oldest = slot.newer }
        slots[index]?.newer = -1
        slots[index]?.older = -1
    }

    private mutating func linkAsNewest(_ index: Int) {
        slots[index]?.older = newest
        slots[index]?.newer = -1
        if newest >= 0 { slots[newest]?.newer = index }
        newest = index
        if oldest < 0 { oldest = index }
    }
}
