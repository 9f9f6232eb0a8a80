import Foundation

/// A parsed body and what reading it needs: the tape, the decoding options, and whether the
/// reading met a case it leaves to Foundation.
///
/// The values a model asks for are read here, by tape index, following what Foundation's
/// `JSONDecoder` does with the same text. Where the two might not agree (a whole number
/// written `1.0`, a number that does not fit, a string that is not UTF-8, `Decimal`), the
/// document is *declined*: the error thrown says nothing useful, the flag stays set even if
/// a model catches the error, and the caller reads the body again with `JSONDecoder`. So a
/// successful reading gives what `JSONDecoder` gives, and every failure is `JSONDecoder`'s own.
final class TapeDocument {
    /// The parsed body.
    let tape: JSONTape
    /// The options the body is read with.
    let options: DecodingOptions
    /// The context handed to the models' `init(from:)`.
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether a case was met that is left to Foundation.
    private(set) var isDeclined = false
    /// Member indexes of the objects looked up by name (large ones, or with escaped keys).
    private var memberIndexes: [Int: [String: Int]] = [:]

    /// Objects with more members than this are looked up through an index.
    private static let linearSearchLimit = 24

    init(tape: JSONTape, options: DecodingOptions) {
        self.tape = tape
        self.options = options
        var userInfo: [CodingUserInfoKey: Any] = [:]
        for (key, value) in options.userInfo { userInfo[key] = value }
        self.userInfo = userInfo
    }

    /// Marks the document as left to Foundation and returns the error to throw.
    func decline() -> Declined {
        isDeclined = true
        return Declined()
    }

    /// The error that unwinds a declined reading; the caller reads the body with Foundation.
    struct Declined: Error {}

    @inline(__always)
    func entry(_ index: Int) -> JSONTape.Entry {
        tape.entries[index]
    }

    // MARK: Objects

    /// The index of the value of the member named `key` in the object at `object`, the first
    /// when the name is there twice (as `JSONDecoder` keeps the first).
    func member(named key: String, inObject object: Int) throws -> Int? {
        let container = entry(object)
        if container.isComplex || container.start > Self.linearSearchLimit {
            return try index(ofObject: object)[key]
        }
        var key = key
        return key.withUTF8 { name in
            tape.bytes.withUnsafeBufferPointer { bytes in
                tape.entries.withUnsafeBufferPointer { entries in
                    var index = object + 1
                    let end = Int(entries[object].end)
                    while index < end {
                        let keyEntry = entries[index]
                        let length = Int(keyEntry.end - keyEntry.start)
                        if length == name.count, Self.equal(bytes, from: Int(keyEntry.start), name) {
                            return index + 1
                        }
                        let value = entries[index + 1]
                        switch value.kind {
                        case .object, .array: index = Int(value.end)
                        default: index += 2
                        }
                    }
                    return nil
                }
            }
        }
    }

    /// Whether `bytes` from `start` begin with `name`, whose length the caller checked.
    @inline(__always)
    private static func equal(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        _ name: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        // An empty name has no address, and matches an empty key.
        guard let text = bytes.baseAddress, let characters = name.baseAddress else { return true }
        return memcmp(text + start, characters, name.count) == 0
    }

    /// The keys of the object at `object`, in document order, each once.
    func keys(ofObject object: Int) throws -> [String] {
        var keys: [String] = []
        var seen = Set<String>()
        var index = object + 1
        let end = Int(entry(object).end)
        keys.reserveCapacity(Int(entry(object).start))
        while index < end {
            let key = try string(atKey: index)
            if seen.insert(key).inserted { keys.append(key) }
            index = tape.next(after: index + 1)
        }
        return keys
    }

    /// The names of an object's members and where their values are, the first of each name.
    private func index(ofObject object: Int) throws -> [String: Int] {
        if let index = memberIndexes[object] { return index }
        var members: [String: Int] = [:]
        members.reserveCapacity(Int(entry(object).start))
        var index = object + 1
        let end = Int(entry(object).end)
        while index < end {
            let key = try string(atKey: index)
            if members[key] == nil { members[key] = index + 1 }
            index = tape.next(after: index + 1)
        }
        memberIndexes[object] = members
        return members
    }

    /// A member's name; a name that is not UTF-8 is left to Foundation.
    private func string(atKey index: Int) throws -> String {
        let key = entry(index)
        guard let string = JSONText.string(tape.text(of: key), isComplex: key.isComplex) else { throw decline() }
        return string
    }

    // MARK: Paths

    /// The coding path of the value at `index`, rebuilt from the tape: the names of the
    /// members and the positions of the elements that lead to it.
    func codingPath(of index: Int) -> [any CodingKey] {
        guard index > 0 else { return [] }
        var reversed: [any CodingKey] = []
        var child = index
        while child > 0 {
            let parent = Int(entry(child).parent)
            if entry(parent).kind == .object {
                let key = entry(child - 1)
                reversed.append(AnyCodingKey(JSONText.string(tape.text(of: key), isComplex: key.isComplex) ?? ""))
            } else {
                var position = 0
                var sibling = parent + 1
                while sibling < child {
                    sibling = tape.next(after: sibling)
                    position += 1
                }
                reversed.append(AnyCodingKey(indexed: position))
            }
            child = parent
        }
        return reversed.reversed()
    }

    // MARK: Scalars

    /// Whether the value at `index` is `null`.
    @inline(__always)
    func isNull(_ index: Int) -> Bool {
        entry(index).kind == .null
    }

    func bool(at index: Int) throws -> Bool {
        switch entry(index).kind {
        case .true: return true
        case .false: return false
        default: throw typeMismatch(Bool.self, at: index)
        }
    }

    func string(at index: Int) throws -> String {
        let value = entry(index)
        guard value.kind == .string else {
            throw value.kind == .null ? valueNotFound(String.self, at: index) : typeMismatch(String.self, at: index)
        }
        guard let string = JSONText.string(tape.text(of: value), isComplex: value.isComplex) else { throw decline() }
        return string
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let value = entry(index)
        guard value.kind == .number else {
            throw value.kind == .null ? valueNotFound(T.self, at: index) : typeMismatch(T.self, at: index)
        }
        let text = tape.text(of: value)
        guard value.isComplex else {
            // Out of range or a negative unsigned: Foundation goes on through `Double` and `Decimal`.
            guard let integer = JSONText.integer(text, as: T.self) else { throw decline() }
            return integer
        }
        // A fraction or an exponent: Foundation takes the number through `Double` and keeps it
        // when the conversion is exact and below 2^53; above that, `Decimal` decides.
        guard let double = Double(String(decoding: text, as: UTF8.self)) else { throw decline() }
        guard let integer = T(exactly: double) else { throw notRepresentable(T.self, at: index) }
        guard double.magnitude < 0x1p53 else { throw decline() }
        return integer
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let value = entry(index)
        switch value.kind {
        case .number:
            let text = tape.text(of: value)
            // An overflow to infinity or an underflow to zero is an error in Foundation. Its test
            // for a true zero also refuses some zeros with an exponent (`0e5`): any zero written
            // with an exponent is left to it.
            guard let number = T(String(decoding: text, as: UTF8.self)), number.isFinite else { throw decline() }
            if number == 0, Self.mayNotBeTrueZero(text) { throw decline() }
            return number
        case .string:
            if !value.isComplex,
                case .convertFromString(let positive, let negative, let nan) =
                    options.nonConformingFloatDecodingStrategy
            {
                let text = tape.text(of: value)
                if JSONText.equals(text, positive) { return .infinity }
                if JSONText.equals(text, negative) { return -.infinity }
                if JSONText.equals(text, nan) { return .nan }
            }
            throw typeMismatch(T.self, at: index)
        case .null:
            throw valueNotFound(T.self, at: index)
        default:
            throw typeMismatch(T.self, at: index)
        }
    }

    /// Whether a number read as zero has an exponent or a digit that is not zero.
    private static func mayNotBeTrueZero(_ text: ArraySlice<UInt8>) -> Bool {
        text.contains { byte in
            byte | 0x20 == UInt8(ascii: "e") || (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte)
        }
    }

    // MARK: Errors

    func typeMismatch(_ type: Any.Type, at index: Int) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(
                codingPath: codingPath(of: index),
                debugDescription: "Expected to decode \(type) but found \(describe(entry(index).kind)) instead."
            ))
    }

    func valueNotFound(_ type: Any.Type, at index: Int) -> DecodingError {
        DecodingError.valueNotFound(
            type,
            .init(
                codingPath: codingPath(of: index),
                debugDescription: "Cannot get value of type \(type) -- found null value instead"
            ))
    }

    func notRepresentable(_ type: Any.Type, at index: Int) -> DecodingError {
        let text = String(decoding: tape.text(of: entry(index)), as: UTF8.self)
        return DecodingError.dataCorrupted(
            .init(
                codingPath: codingPath(of: index),
                debugDescription: "Number \(text) is not representable in Swift."
            ))
    }

    private func describe(_ kind: JSONTape.Kind) -> String {
        switch kind {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        }
    }
}
