/// The members of an object of a ``TapeDocument``, looked up by name.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder that made the container; nested values are decoded through it.
    let decoder: TapeDecoder
    /// The tape index of the object.
    let object: Int

    private var document: TapeDocument { decoder.document }

    var codingPath: [any CodingKey] { document.codingPath(of: object) }

    var allKeys: [Key] {
        // A name that is not UTF-8 declines the document; the keys are then Foundation's.
        ((try? document.keys(ofObject: object)) ?? []).compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        (try? document.member(named: key.stringValue, inObject: object)) != nil
    }

    /// The tape index of the member's value.
    private func value(_ key: Key) throws -> Int {
        guard let index = try document.member(named: key.stringValue, inObject: object) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            )
        }
        return index
    }

    /// The tape index of the member's value, or `nil` when it is absent or `null`.
    private func presentValue(_ key: Key) throws -> Int? {
        guard let index = try document.member(named: key.stringValue, inObject: object), !document.isNull(index) else {
            return nil
        }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool { document.isNull(try value(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try document.bool(at: value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try document.string(at: value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try document.floatingPoint(Double.self, at: value(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try document.floatingPoint(Float.self, at: value(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try document.integer(Int.self, at: value(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try document.integer(Int8.self, at: value(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try document.integer(Int16.self, at: value(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try document.integer(Int32.self, at: value(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try document.integer(Int64.self, at: value(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try document.integer(UInt.self, at: value(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try document.integer(UInt8.self, at: value(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try document.integer(UInt16.self, at: value(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try document.integer(UInt32.self, at: value(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try document.integer(UInt64.self, at: value(key))
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(T.self, at: value(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(key).map { try document.bool(at: $0) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(key).map { try document.string(at: $0) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentValue(key).map { try document.floatingPoint(Double.self, at: $0) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try presentValue(key).map { try document.integer(Int.self, at: $0) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentValue(key).map { try decoder.decode(T.self, at: $0) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let index = try value(key)
        return try decoder.with(index) { try decoder.container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let index = try value(key)
        return try decoder.with(index) { try decoder.unkeyedContainer() }
    }

    /// `JSONDecoder` gives a decoder at `null` under the key `super` when there is none: that
    /// decoder's path is its own, so the document is left to it.
    func superDecoder() throws -> any Decoder {
        guard let index = try document.member(named: "super", inObject: object) else { throw document.decline() }
        return TapeDecoder(document: document, index: index)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let index = try document.member(named: key.stringValue, inObject: object) else {
            throw document.decline()
        }
        return TapeDecoder(document: document, index: index)
    }
}
