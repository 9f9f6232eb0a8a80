/// A JSON document parsed into one flat array of entries: the structure ``TapeDecoder`` walks.
///
/// Every value is one entry, in document order. An object's entry is followed by its
/// members, each a key entry (a string) and then the value's entries; an array's entry by
/// its elements. A container's entry says how many members or elements it has and where the
/// entries after it begin, so a reader steps over a whole value in one move. Scalars keep
/// the byte range of their text, which is read only when a model asks for the value.
///
/// The parser is strict RFC 8259 (no comments, no trailing commas, no leading zeros, no
/// control characters in strings) and gives up on anything else, including a document
/// deeper than 512 levels or one not in UTF-8: `init` returns `nil`, and the caller reads
/// the body with Foundation's `JSONDecoder`, which reports what is wrong.
struct JSONTape {
    /// What a value is.
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// One value of the document.
    struct Entry {
        /// What the value is.
        var kind: Kind
        /// For a string: it has escapes or bytes beyond ASCII, so it is not its own text.
        /// For a number: it has a fraction or an exponent. For an object: one of its keys is
        /// such a string.
        var isComplex: Bool
        /// For a scalar: where its text begins (a string's, after the opening quote).
        /// For a container: how many members or elements it has.
        var start: UInt32
        /// For a scalar: where its text ends (a string's, before the closing quote).
        /// For a container: the index of the first entry after the container's last value.
        var end: UInt32
        /// The index of the container the value is in; the root's is its own, 0.
        var parent: UInt32
    }

    /// The deepest nesting read; deeper documents are left to Foundation, which refuses them.
    static let maximumDepth = 512

    /// The document's bytes.
    let bytes: [UInt8]
    /// The values, in document order; the root is entry 0.
    private(set) var entries: [Entry]

    /// Parses `bytes`, or returns `nil` when they are not a JSON text this parser reads.
    init?(_ bytes: [UInt8]) {
        guard bytes.count < Int(UInt32.max), !Self.mayBeAnotherEncoding(bytes) else { return nil }
        self.bytes = bytes
        var entries: [Entry] = []
        // One entry for every eight bytes covers typical API documents without growing.
        entries.reserveCapacity(bytes.count / 8 + 4)
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var parser = Parser(bytes: buffer, entries: entries)
            entries = []
            let complete = parser.parseDocument()
            entries = parser.entries
            return complete
        }
        guard parsed else { return nil }
        self.entries = entries
    }

    /// Whether the text may be UTF-16 or UTF-32, or carry a byte-order mark: Foundation reads
    /// those by converting them first, so they are left to it.
    private static func mayBeAnotherEncoding(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first else { return false }
        if first == 0 || first == 0xEF || first == 0xFE || first == 0xFF { return true }
        return bytes.count > 1 && bytes[1] == 0
    }

    /// The text of a scalar entry.
    func text(of entry: Entry) -> ArraySlice<UInt8> {
        bytes[Int(entry.start)..<Int(entry.end)]
    }

    /// The index of the entry after the value at `index` and everything inside it.
    @inline(__always)
    func next(after index: Int) -> Int {
        let entry = entries[index]
        switch entry.kind {
        case .object, .array: return Int(entry.end)
        default: return index + 1
        }
    }
}

extension JSONTape {
    /// A recursive-descent parser writing entries as it goes.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var entries: [Entry]
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, entries: [Entry]) {
            self.bytes = bytes
            self.entries = entries
        }

        /// One value and nothing after it but whitespace.
        mutating func parseDocument() -> Bool {
            skipWhitespace()
            guard parseValue(parent: 0, depth: 0) else { return false }
            skipWhitespace()
            return position == bytes.count
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func parseValue(parent: UInt32, depth: Int) -> Bool {
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "{"): return parseObject(parent: parent, depth: depth + 1)
            case UInt8(ascii: "["): return parseArray(parent: parent, depth: depth + 1)
            case UInt8(ascii: "\""): return parseString(parent: parent)
            case UInt8(ascii: "t"): return parseLiteral("true", .true, parent: parent)
            case UInt8(ascii: "f"): return parseLiteral("false", .false, parent: parent)
            case UInt8(ascii: "n"): return parseLiteral("null", .null, parent: parent)
            default: return parseNumber(parent: parent)
            }
        }

        mutating func parseObject(parent: UInt32, depth: Int) -> Bool {
            guard depth <= JSONTape.maximumDepth else { return false }
            let index = entries.count
            entries.append(Entry(kind: .object, isComplex: false, start: 0, end: 0, parent: parent))
            position += 1
            skipWhitespace()
            var count: UInt32 = 0
            var hasComplexKey = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
            } else {
                while true {
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
                        parseString(parent: UInt32(index))
                    else { return false }
                    hasComplexKey = hasComplexKey || entries[entries.count - 1].isComplex
                    skipWhitespace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return false }
                    position += 1
                    skipWhitespace()
                    guard parseValue(parent: UInt32(index), depth: depth) else { return false }
                    count += 1
                    skipWhitespace()
                    guard position < bytes.count else { return false }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        continue
                    }
                    guard bytes[position] == UInt8(ascii: "}") else { return false }
                    position += 1
                    break
                }
            }
            entries[index].start = count
            entries[index].end = UInt32(entries.count)
            entries[index].isComplex = hasComplexKey
            return true
        }

        mutating func parseArray(parent: UInt32, depth: Int) -> Bool {
            guard depth <= JSONTape.maximumDepth else { return false }
            let index = entries.count
            entries.append(Entry(kind: .array, isComplex: false, start: 0, end: 0, parent: parent))
            position += 1
            skipWhitespace()
            var count: UInt32 = 0
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
            } else {
                while true {
                    guard parseValue(parent: UInt32(index), depth: depth) else { return false }
                    count += 1
                    skipWhitespace()
                    guard position < bytes.count else { return false }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        continue
                    }
                    guard bytes[position] == UInt8(ascii: "]") else { return false }
                    position += 1
                    break
                }
            }
            entries[index].start = count
            entries[index].end = UInt32(entries.count)
            return true
        }

        /// A string; its escapes are checked here and decoded when the string is read.
        mutating func parseString(parent: UInt32) -> Bool {
            position += 1
            let start = position
            var isComplex = false
            while position < bytes.count {
                // Eight bytes at a time up to the first that ends the string, starts an escape or
                // is a control byte: most of a string's bytes need no look of their own.
                if position + 8 <= bytes.count, let base = bytes.baseAddress {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                    let plain = Self.plainPrefixLength(of: word)
                    let prefix = plain == 8 ? word : word & ((1 << UInt64(plain * 8)) - 1)
                    if prefix & 0x8080_8080_8080_8080 != 0 { isComplex = true }
                    position += plain
                    // Fewer than eight: the byte after them is one to look at, here and now.
                    if plain == 8 { continue }
                }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    entries.append(
                        Entry(
                            kind: .string, isComplex: isComplex, start: UInt32(start), end: UInt32(position),
                            parent: parent))
                    position += 1
                    return true
                }
                if byte < 0x20 { return false }
                if byte >= 0x80 {
                    isComplex = true
                } else if byte == UInt8(ascii: "\\") {
                    isComplex = true
                    position += 1
                    guard position < bytes.count else { return false }
                    switch bytes[position] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        break
                    case UInt8(ascii: "u"):
                        guard position + 4 < bytes.count else { return false }
                        for offset in 1...4 where JSONText.hexValue(bytes[position + offset]) == nil {
                            return false
                        }
                        position += 4
                    default:
                        return false
                    }
                }
                position += 1
            }
            return false
        }

        /// How many of the eight bytes of `word` (the first in its low byte) come before the
        /// first `"`, `\` or control byte (below 0x20): 8 when there is none.
        ///
        /// Each test marks the high bit of every byte it matches, and may mark bytes above its
        /// first match as well (a borrow carries upwards), never one below it; so the lowest mark
        /// of the three together is the first byte any of them matches.
        @inline(__always)
        static func plainPrefixLength(of word: UInt64) -> Int {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
            let quotes = zeroBytes(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            let escapes = zeroBytes(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
            let controls = (word &- ones &* 0x20) & ~word & highs
            return (quotes | escapes | controls).trailingZeroBitCount / 8
        }

        /// A number as RFC 8259 spells it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func parseNumber(parent: UInt32) -> Bool {
            let start = position
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return false }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else {
                guard skipDigits() else { return false }
            }
            var isComplex = false
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard skipDigits() else { return false }
                isComplex = true
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard skipDigits() else { return false }
                isComplex = true
            }
            // A number ends where a structural character or whitespace follows.
            if position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: break
                default: return false
                }
            }
            entries.append(
                Entry(kind: .number, isComplex: isComplex, start: UInt32(start), end: UInt32(position), parent: parent))
            return true
        }

        /// One or more decimal digits.
        mutating func skipDigits() -> Bool {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position > start
        }

        mutating func parseLiteral(_ literal: StaticString, _ kind: Kind, parent: UInt32) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard position + length <= bytes.count else { return false }
            let matches = literal.withUTF8Buffer { expected in
                (0..<length).allSatisfy { bytes[position + $0] == expected[$0] }
            }
            guard matches else { return false }
            entries.append(
                Entry(
                    kind: kind, isComplex: false, start: UInt32(position), end: UInt32(position + length),
                    parent: parent))
            position += length
            return true
        }
    }
}
