import Foundation

/// Reads a payload from a document, given the decoder at the document's root.
///
/// A reader travels to ``PlanRunner`` in the `JSONDecoder`'s `userInfo`, so one
/// `decode(_:from:)` call parses the body once and the reader follows as many key paths as
/// it needs (an envelope's code, message and data; a list's items and cursor) in that one
/// parse. Readers are values generic over what they decode rather than closures, so they
/// are `Sendable` without asking every model type for a `Sendable` metatype.
protocol PayloadReader: Sendable {
    /// What the reader produces.
    associatedtype Payload

    /// Reads the payload.
    ///
    /// - Parameters:
    ///   - decoder: The decoder at the document's root.
    ///   - walker: Follows key paths with the decoder's options.
    ///   - base: Where the payload starts: the root, or an envelope's data.
    func read(from decoder: any Decoder, walker: KeyPathWalker, at base: JSONKeyPath) throws -> Payload
}

extension PayloadReader {
    /// Parses `body` once and runs the reader on it: with the tape decoder when it reads the
    /// body, with `JSONDecoder` otherwise (see ``TapeReading``).
    ///
    /// - Throws: Whatever the parse or the reader throws: `DecodingError`, ``KeyPathError``,
    ///   ``EnvelopeShapeError``, or an error of a model's own `init(from:)`.
    func run(on body: Data, options: DecodingOptions) throws -> Payload {
        if case .read(let payload) = TapeReading(self, body: body, options: options) { return payload }
        let decoder = options.makeDecoder()
        guard let key = PlanKey.userInfoKey else { throw PlanKey.MissingReader() }
        decoder.userInfo[key] = PlanKey.Plan(reader: self, walker: KeyPathWalker(options: options))
        return try decoder.decode(PlanRunner<Self>.self, from: body).payload
    }
}

/// The value at a key path, decoded as `Value`.
struct ValueReader<Value: Decodable>: PayloadReader {
    var path: JSONKeyPath

    func read(from decoder: any Decoder, walker: KeyPathWalker, at base: JSONKeyPath) throws -> Value {
        try walker.decode(Value.self, from: decoder, at: base + path)
    }
}

/// Nothing: for checking an envelope's code alone.
struct NothingReader: PayloadReader {
    func read(from decoder: any Decoder, walker: KeyPathWalker, at base: JSONKeyPath) throws {}
}

/// Where the reader of one decoding lives in `userInfo`.
enum PlanKey {
    /// The `userInfo` key.
    static var userInfoKey: CodingUserInfoKey? { CodingUserInfoKey(rawValue: "org.parley.mapping.plan") }

    /// A reader with the walker to run it with.
    struct Plan<Reader: PayloadReader>: Sendable {
        var reader: Reader
        var walker: KeyPathWalker
    }

    /// A reader that did not reach its runner: a programming error inside this module.
    struct MissingReader: Error {}
}

/// The `Decodable` that `JSONDecoder` decodes at the root: it hands its decoder to the reader.
private struct PlanRunner<Reader: PayloadReader>: Decodable {
    var payload: Reader.Payload

    init(from decoder: any Decoder) throws {
        guard let key = PlanKey.userInfoKey,
            let plan = decoder.userInfo[key] as? PlanKey.Plan<Reader>
        else { throw PlanKey.MissingReader() }
        payload = try plan.reader.read(from: RootDecoder(decoder), walker: plan.walker, at: .root)
    }
}

/// The decoder at the document's root, whose keyed container is made once: an envelope's
/// code, message and data are three walks from the same object, and `JSONDecoder` indexes
/// an object's keys anew for every container it makes.
private final class RootDecoder: Decoder {
    private let base: any Decoder
    private var members: KeyedDecodingContainer<AnyCodingKey>?

    init(_ base: any Decoder) {
        self.base = base
    }

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard Key.self == AnyCodingKey.self else { return try base.container(keyedBy: type) }
        let members = try self.members ?? base.container(keyedBy: AnyCodingKey.self)
        self.members = members
        // The same type, as the guard checked.
        return unsafeBitCast(members, to: KeyedDecodingContainer<Key>.self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try base.unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }
}
