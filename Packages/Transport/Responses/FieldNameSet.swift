package import HTTPTypes

/// A few field names a reader picks out of a received head's lines
/// (``ReceivedResponseHead/head(keeping:)``), each kept as its lowercase bytes, with a mask of
/// their lengths: a line whose name is none of those lengths is passed over with one test, and
/// the others are compared byte by byte, in any letter case, without going through a string.
///
/// Make one once, where the names are known (a `static let`), and use it for every response.
///
/// A head also carries the ``signatureBit(of:)`` of every name it received
/// (``ReceivedResponseHead/nameSignature``): when none of the set's bits is among them, none of
/// its names is there, and the lines need not be read at all.
package struct FieldNameSet: Sendable, ExpressibleByArrayLiteral {
    /// The names, in the order given.
    package let names: [HTTPField.Name]
    /// The ``signatureBit(of:)`` of every name, together.
    package let signature: UInt64
    /// Each name's lowercase bytes, at the name's index.
    private let spellings: [[UInt8]]
    /// Bit `n` set when a name has `n` bytes; bit 63 for every name of 63 bytes or more.
    private let lengths: UInt64

    /// The set of `names`.
    package init(_ names: [HTTPField.Name]) {
        self.names = names
        self.spellings = names.map { Array($0.canonicalName.utf8) }
        self.lengths = spellings.reduce(0) { $0 | Self.bit(ofLength: $1.count) }
        self.signature = spellings.reduce(0) { $0 | Self.signatureBit(of: $1) }
    }

    /// The bit of a field name spelled by `bytes` (at least one) in a head's signature: from
    /// its length and its first and last bytes, each with bit 5 set (ASCII letters in
    /// lowercase), so that a name has the same bit in any letter case. Names may share a bit:
    /// a set bit says a name may be there, a clear one that it is not. The engine computes the
    /// same bit in C (`parley_field_name_bit`) as each line arrives.
    package static func signatureBit(of bytes: some BidirectionalCollection<UInt8>) -> UInt64 {
        guard let first = bytes.first, let last = bytes.last else { return 0 }
        let mixed = UInt64(bytes.count) &* 7 &+ UInt64(first | 0x20) &* 3 &+ UInt64(last | 0x20)
        return 1 << (mixed & 63)
    }

    /// Whether a head whose ``ReceivedResponseHead/nameSignature`` is `signature` may hold one
    /// of the names; `false` means it holds none.
    package func mayOccur(in signature: UInt64) -> Bool {
        self.signature & signature != 0
    }

    /// The set of the names listed.
    package init(arrayLiteral names: HTTPField.Name...) {
        self.init(names)
    }

    /// Whether `name` is one of the names.
    package func contains(_ name: HTTPField.Name) -> Bool {
        names.contains(name)
    }

    /// The name the `bytes` of a received line spell, in any letter case, when it is one of
    /// the set's.
    package func name(spelledBy bytes: UnsafeBufferPointer<UInt8>) -> HTTPField.Name? {
        let count = bytes.count
        guard lengths & Self.bit(ofLength: count) != 0, let start = bytes.baseAddress else { return nil }
        for (index, spelling) in spellings.enumerated() where spelling.count == count {
            if Self.equalIgnoringCase(start, spelling) { return names[index] }
        }
        return nil
    }

    private static func bit(ofLength count: Int) -> UInt64 {
        1 << UInt64(min(count, 63))
    }

    /// Whether the bytes at `bytes` spell `lowercase` (of the same count) in any case.
    private static func equalIgnoringCase(_ bytes: UnsafePointer<UInt8>, _ lowercase: [UInt8]) -> Bool {
        for index in lowercase.indices {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 0x20 }
            if byte != lowercase[index] { return false }
        }
        return true
    }
}
