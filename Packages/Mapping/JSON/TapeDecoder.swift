import Foundation

/// A `Decoder` over a ``TapeDocument``, positioned at one value of it.
///
/// As `JSONDecoder` does, one decoder serves a whole nested decoding: to decode a member or
/// an element it moves to that value, runs the type's `init(from:)`, and moves back, so a
/// nested value costs no new decoder. `superDecoder` makes a decoder of its own.
final class TapeDecoder: Decoder, SingleValueDecodingContainer {
    /// The document read.
    let document: TapeDocument
    /// The tape index of the value the decoder reads.
    private(set) var index: Int

    init(document: TapeDocument, index: Int) {
        self.document = document
        self.index = index
    }

    var codingPath: [any CodingKey] { document.codingPath(of: index) }
    var userInfo: [CodingUserInfoKey: Any] { document.userInfo }

    /// Runs `body` with the decoder at the value at `index`, then moves it back.
    @inline(__always)
    func with<T>(_ index: Int, _ body: () throws -> T) rethrows -> T {
        let previous = self.index
        self.index = index
        defer { self.index = previous }
        return try body()
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch document.entry(index).kind {
        case .object:
            return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: index))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Cannot get keyed decoding container -- found null value instead")
            )
        default:
            throw document.typeMismatch([String: Any].self, at: index)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch document.entry(index).kind {
        case .array:
            return TapeUnkeyedContainer(decoder: self, array: index)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Cannot get unkeyed decoding container -- found null value instead")
            )
        default:
            throw document.typeMismatch([Any].self, at: index)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Values

    /// The value at `index` decoded as `T`: `Date`, `Data`, `URL` and `Decimal` as
    /// `JSONDecoder` treats them, with the options' strategies; any other type through its
    /// own `init(from:)`.
    ///
    /// A special type's value is cast to `T` only once `T` is known to be that type: an `as? T`
    /// here would hold an `Optional<T>`, whose metadata every call (most of them for the model's
    /// own types) would look up in the runtime's cache first, about 600 instructions each.
    func decode<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        if T.self == Data.self { return Self.exactly(try data(at: index), as: T.self) }
        if T.self == Date.self { return Self.exactly(try date(at: index), as: T.self) }
        if T.self == URL.self { return Self.exactly(try url(at: index), as: T.self) }
        if T.self == Decimal.self { return Self.exactly(try decimal(at: index), as: T.self) }
        return try with(index) { try T(from: self) }
    }

    /// `value` as `T`, which the caller has checked is `Value` itself.
    private static func exactly<Value, T>(_ value: Value, as type: T.Type) -> T {
        // swift-format-ignore: NeverForceUnwrap
        value as! T
    }

    private func date(at index: Int) throws -> Date {
        guard !document.isNull(index) else { throw document.valueNotFound(Date.self, at: index) }
        let strategy = document.options.dateDecodingStrategy
        if case .iso8601 = strategy {
            let string = try document.string(at: index)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath, debugDescription: "Expected date string to be ISO8601-formatted.")
                )
            }
            return date
        }
        if case .custom(let read) = strategy { return try with(index) { try read(self) } }
        if case .secondsSince1970 = strategy {
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index))
        }
        if case .millisecondsSince1970 = strategy {
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index) / 1000)
        }
        if case .deferredToDate = strategy { return try with(index) { try Date(from: self) } }
        throw document.decline()
    }

    private func data(at index: Int) throws -> Data {
        guard !document.isNull(index) else { throw document.valueNotFound(Data.self, at: index) }
        let strategy = document.options.dataDecodingStrategy
        if case .base64 = strategy {
            guard document.entry(index).kind == .string else { throw document.typeMismatch(String.self, at: index) }
            // Foundation's own Base64 reader may take what this one refuses: leave it to decide.
            guard let data = Data(base64Encoded: try document.string(at: index)) else { throw document.decline() }
            return data
        }
        if case .custom(let read) = strategy { return try with(index) { try read(self) } }
        if case .deferredToData = strategy { return try with(index) { try Data(from: self) } }
        throw document.decline()
    }

    private func url(at index: Int) throws -> URL {
        guard !document.isNull(index) else { throw document.valueNotFound(URL.self, at: index) }
        guard let url = URL(string: try document.string(at: index)) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: document.codingPath(of: index), debugDescription: "Invalid URL string.")
            )
        }
        return url
    }

    /// A `Decimal` through `JSONDecoder` itself, from the number's own text: its parser keeps
    /// every digit, which no other reading here does.
    private func decimal(at index: Int) throws -> Decimal {
        let value = document.entry(index)
        guard value.kind == .number else { throw document.decline() }
        guard let decimal = try? JSONDecoder().decode(Decimal.self, from: Data(document.tape.text(of: value))) else {
            throw document.decline()
        }
        return decimal
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { document.isNull(index) }
    func decode(_ type: Bool.Type) throws -> Bool { try document.bool(at: index) }
    func decode(_ type: String.Type) throws -> String { try document.string(at: index) }
    func decode(_ type: Double.Type) throws -> Double { try document.floatingPoint(Double.self, at: index) }
    func decode(_ type: Float.Type) throws -> Float { try document.floatingPoint(Float.self, at: index) }
    func decode(_ type: Int.Type) throws -> Int { try document.integer(Int.self, at: index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try document.integer(Int8.self, at: index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try document.integer(Int16.self, at: index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try document.integer(Int32.self, at: index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try document.integer(Int64.self, at: index) }
    func decode(_ type: UInt.Type) throws -> UInt { try document.integer(UInt.self, at: index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try document.integer(UInt8.self, at: index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try document.integer(UInt16.self, at: index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try document.integer(UInt32.self, at: index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try document.integer(UInt64.self, at: index) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(T.self, at: index) }
}
