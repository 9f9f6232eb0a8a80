/// Keys in order of use, most recent first: a doubly linked list kept in arrays, with a
/// dictionary from key to node, so every operation is O(1) (listing the keys is O(n)).
struct LRUList<Key: Hashable & Sendable>: Sendable {
    private struct Node: Sendable {
        var key: Key
        var newer: Int?
        var older: Int?
    }

    private var nodes: [Node?] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    /// The most recently used node.
    private var newest: Int?
    /// The least recently used node.
    private var oldest: Int?

    /// The number of keys.
    var count: Int { slots.count }

    /// Whether `key` is in the list.
    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// The least recently used key.
    var leastRecent: Key? { oldest.flatMap { nodes[$0]?.key } }

    /// Every key, least recently used first.
    var keysFromLeastRecent: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = oldest
        while let current = slot, let node = nodes[current] {
            keys.append(node.key)
            slot = node.newer
        }
        return keys
    }

    /// Makes `key` the most recently used, adding it when it is new.
    mutating func touch(_ key: Key) {
        if let slot = slots[key] {
            unlink(slot)
            linkAsNewest(slot)
        } else {
            linkAsNewest(allocate(key))
        }
    }

    /// Adds `key` as the least recently used; a key already there stays where it is.
    mutating func insertAsLeastRecent(_ key: Key) {
        guard slots[key] == nil else { return }
        let slot = allocate(key)
        nodes[slot]?.newer = oldest
        nodes[slot]?.older = nil
        if let oldest { nodes[oldest]?.older = slot }
        oldest = slot
        if newest == nil { newest = slot }
    }

    /// Removes `key`, if it is there.
    mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        unlink(slot)
        nodes[slot] = nil
        freeSlots.append(slot)
    }

    /// Removes every key.
    mutating func removeAll() {
        self = LRUList()
    }

    private mutating func allocate(_ key: Key) -> Int {
        let node = Node(key: key, newer: nil, older: nil)
        let slot: Int
        if let free = freeSlots.popLast() {
            nodes[free] = node
            slot = free
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        return slot
    }

    private mutating func unlink(_ slot: Int) {
        guard let node = nodes[slot] else { return }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        nodes[slot]?.newer = nil
        nodes[slot]?.older = nil
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot]?.older = newest
        nodes[slot]?.newer = nil
        if let newest { nodes[newest]?.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
