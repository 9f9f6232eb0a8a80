import TestSupport
import Testing

@testable import Caching

/// The index both storages keep: an open-addressing table over slots in order of use, checked
/// against a plain dictionary and array doing the same operations.
///
/// Checked to fail: with the backward shift of a removal left out (the bucket only emptied),
/// keys after it in a probe run are lost and the random walks fail within a few hundred steps;
/// with a store's move to the front left out, the order of use differs.
@Suite struct LRUDictionaryTests {
    /// A key whose hash is chosen by the test, so that keys collide as often as wanted.
    struct Key: LRUKey, CustomStringConvertible {
        var name: Int
        var lruHash: UInt64
        var description: String { "\(name)" }
    }

    /// The same operations on a dictionary and an array of keys, least recently used first.
    struct Model {
        var values: [Int: Int] = [:]
        var order: [Int] = []

        mutating func use(_ key: Int) {
            order.removeAll { $0 == key }
            order.append(key)
        }
    }

    /// Random stores, reads, removals and evictions, on hashes spread out and on hashes that
    /// mostly collide (few distinct hashes for many keys, so probe runs are long and removals
    /// shift them).
    @Test(arguments: [(1_000_000, 1), (4, 2), (1, 3)])
    func randomOperationsMatchAPlainDictionaryAndList(distinctHashes: UInt64, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var index = LRUDictionary<Key, Int>()
        var model = Model()
        func key(_ name: Int) -> Key {
            Key(name: name, lruHash: UInt64(name).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15).low % distinctHashes)
        }
        for step in 0..<5000 {
            let name = Int(generator.next() % 300)
            switch generator.next() % 6 {
            case 0, 1:
                let old = index.set(step, forKey: key(name))
                #expect(old == model.values[name], "step \(step): set \(name)")
                model.values[name] = step
                model.use(name)
            case 2:
                let value = index.touch(key(name))
                #expect(value == model.values[name], "step \(step): touch \(name)")
                if value != nil { model.use(name) }
            case 3:
                let value = index.removeValue(forKey: key(name))
                #expect(value == model.values[name], "step \(step): remove \(name)")
                model.values[name] = nil
                model.order.removeAll { $0 == name }
            case 4:
                let oldest = index.removeLeastRecent()
                #expect(oldest?.key.name == model.order.first, "step \(step): remove the least recent")
                if let first = model.order.first {
                    #expect(oldest?.value == model.values[first])
                    model.values[first] = nil
                    model.order.removeFirst()
                }
            default:
                let value = index.peek(key(name))
                #expect(value == model.values[name], "step \(step): peek \(name)")
                if !model.values.isEmpty, name % 50 == 0 {
                    index.insertAsLeastRecent(-step, forKey: key(name))
                    if model.values[name] == nil {
                        model.values[name] = -step
                        model.order.insert(name, at: 0)
                    }
                }
            }
            #expect(index.count == model.values.count, "step \(step): count")
        }
        #expect(index.entriesFromLeastRecent.map(\.key.name) == model.order)
        for name in 0..<300 { #expect(index.contains(key(name)) == (model.values[name] != nil)) }
    }

    /// The index's hash of a string, eight bytes at a time, tells apart keys that differ in one
    /// byte at any offset (the last few bytes are folded in apart from the words), and keys that
    /// differ only by trailing zero bytes (the count is folded in).
    ///
    /// Checked to fail: with the tail left out, keys that differ in their last bytes collide;
    /// with the count left out, `"a"` and `"a\0"` do.
    @Test func theStringHashTellsApartEveryOneByteChangeAndEveryLength() {
        let base = Array("http://127.0.0.1:8080/small.bin?miss=1000000".utf8)
        var hashes: Set<UInt64> = []
        for offset in base.indices {
            var changed = base
            changed[offset] ^= 0x01
            hashes.insert(String(decoding: changed, as: UTF8.self).lruHash)
        }
        hashes.insert(String(decoding: base, as: UTF8.self).lruHash)
        #expect(hashes.count == base.count + 1)
        let zeros = (0..<20).map {
            String(decoding: [UInt8(ascii: "a")] + Array(repeating: 0, count: $0), as: UTF8.self)
        }
        #expect(Set(zeros.map(\.lruHash)).count == zeros.count)
    }

    @Test func removingEveryKeyEmptiesItAndItFillsAgain() {
        var index = LRUDictionary<String, Int>()
        for round in 0..<3 {
            for number in 0..<100 { index.set(number + round, forKey: "https://example.com/\(number)") }
            #expect(index.count == 100)
            #expect(index.leastRecent?.key == "https://example.com/0")
            while index.removeLeastRecent() != nil {}
            #expect(index.count == 0 && index.entriesFromLeastRecent.isEmpty)
        }
        index.set(1, forKey: "a")
        index.removeAll()
        #expect(index.peek("a") == nil && index.count == 0)
    }
}
