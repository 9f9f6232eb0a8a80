/// The name of a ``DiskCacheStorage`` entry: the 64-bit FNV-1a hash of its key, written as 16
/// lowercase hexadecimal digits in the journal (a segment's number is written the same way).
///
/// The index keeps names as numbers: hashing one for a table is a multiplication, and no text
/// is made for it until a journal line needs it. Two keys may share a name (a
/// collision); the record holds its key, so reading it for the other key is a miss.
struct EntryName: LRUKey, Hashable, Comparable, CustomStringConvertible {
    /// The hash.
    let value: UInt64

    /// The name of a number, for tests.
    init(value: UInt64) {
        self.value = value
    }

    /// The name of the entry stored under `key`.
    init(key: String) {
        value = key.lruHash
    }

    /// The name 16 lowercase hexadecimal digits spell, or `nil` for any other text.
    init?(_ text: some StringProtocol) {
        guard CacheJournal.isValidName(text) else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            value = value << 4 | UInt64(byte <= 0x39 ? byte - 0x30 : byte - 0x57)
        }
        self.value = value
    }

    /// The name as the journal spells it: 16 lowercase hexadecimal digits.
    var description: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(index))) & 0x0F
                buffer[index] = digit < 10 ? 0x30 + digit : 0x57 + digit
            }
            return 16
        }
    }

    var lruHash: UInt64 { value }

    static func < (lhs: EntryName, rhs: EntryName) -> Bool { lhs.value < rhs.value }
}
