/// The elements of an array of a ``TapeDocument``, read in order.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    /// The decoder that made the container; nested values are decoded through it.
    let decoder: TapeDecoder
    /// The tape index of the array.
    let array: Int
    let count: Int?
    private(set) var currentIndex = 0
    /// The tape index of the element at `currentIndex`.
    private var position: Int

    init(decoder: TapeDecoder, array: Int) {
        self.decoder = decoder
        self.array = array
        self.count = Int(decoder.document.entry(array).start)
        self.position = array + 1
    }

    private var document: TapeDocument { decoder.document }
    private var elementCount: Int { Int(document.entry(array).start) }

    var codingPath: [any CodingKey] { document.codingPath(of: array) }
    var isAtEnd: Bool { currentIndex >= elementCount }

    /// The tape index of the next element.
    private func next(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            var path = codingPath
            path.append(AnyCodingKey(indexed: currentIndex))
            throw DecodingError.valueNotFound(
                type,
                .init(codingPath: path, debugDescription: "Unkeyed container is at end.")
            )
        }
        return position
    }

    private mutating func advance() {
        position = document.tape.next(after: position)
        currentIndex += 1
    }

    /// Reads the next element with `read` and moves past it.
    private mutating func take<T>(_ type: T.Type, _ read: (TapeDecoder, Int) throws -> T) throws -> T {
        let value = try read(decoder, next(T.self))
        advance()
        return value
    }

    /// As `JSONDecoder`: `nil` for a `null` element or past the end, and a step forward either way.
    private mutating func takeIfPresent<T>(_ read: (TapeDecoder, Int) throws -> T) throws -> T? {
        guard !isAtEnd else {
            currentIndex += 1
            return nil
        }
        let value = document.isNull(position) ? nil : try read(decoder, position)
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard document.isNull(try next(Never.self)) else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type) { try $0.document.bool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try take(type) { try $0.document.string(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try take(type) { try $0.document.floatingPoint(Double.self, at: $1) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try take(type) { try $0.document.floatingPoint(Float.self, at: $1) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try take(type) { try $0.document.integer(type, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type) { try $0.document.integer(type, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type) { try $0.document.integer(type, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try take(type) { try $0.document.integer(type, at: $1) }
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try take(type) { try $0.decode(T.self, at: $1) }
    }

    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        try takeIfPresent { try $0.document.string(at: $1) }
    }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? {
        try takeIfPresent { try $0.document.integer(type, at: $1) }
    }
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        try takeIfPresent { try $0.decode(T.self, at: $1) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try take(KeyedDecodingContainer<NestedKey>.self) { decoder, index in
            try decoder.with(index) { try decoder.container(keyedBy: type) }
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try take((any UnkeyedDecodingContainer).self) { decoder, index in
            try decoder.with(index) { try decoder.unkeyedContainer() }
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        try take((any Decoder).self) { TapeDecoder(document: $0.document, index: $1) }
    }
}
