import Foundation

/// Reads a payload from a document, given the decoder at the document's root, a walker that
/// follows key paths with the decoder's options, and where the payload starts (the root, or
/// an envelope's data).
///
/// A read is a closure the caller passes down, not a value of a generic type: the public
/// decoders are generic over the caller's model and run unspecialised, and every generic type
/// they instantiate for it (a reader of `Model`, an envelope reader of that reader, an outcome
/// of `Model`) costs a look-up in the runtime's metadata cache on every call. A closure that
/// does not escape costs none.
typealias PayloadRead<Payload> = (
    _ decoder: any Decoder, _ walker: KeyPathWalker, _ base: JSONKeyPath
) throws -> Payload

/// Runs a ``PayloadRead`` on a body, parsed once.
enum PayloadReading {
    /// Parses `body` once and runs `read` on it: with the tape decoder when it reads the
    /// body, with `JSONDecoder` otherwise (see ``TapeReading``).
    ///
    /// - Throws: Whatever the parse or `read` throws: `DecodingError`, ``KeyPathError``,
    ///   ``EnvelopeShapeError``, ``EnvelopeFailure``, or an error of a model's own
    ///   `init(from:)`.
    static func run<Payload>(on body: Data, options: DecodingOptions, _ read: PayloadRead<Payload>) throws -> Payload {
        do {
            return try TapeReading.read(body, options: options, read)
        } catch let failure as EnvelopeFailure {
            throw failure
        } catch {
            // Declined: `JSONDecoder` reads the body again, and its errors are the ones thrown.
        }
        return try withoutActuallyEscaping(read) { read in
            let decoder = options.makeDecoder()
            guard let key = PlanKey.userInfoKey else { throw PlanKey.MissingReader() }
            decoder.userInfo[key] = PlanKey.Plan(read: read, walker: KeyPathWalker(options: options))
            return try decoder.decode(PlanRunner<Payload>.self, from: body).payload
        }
    }
}

/// Where the read of one decoding lives in `userInfo`.
enum PlanKey {
    /// The `userInfo` key.
    static var userInfoKey: CodingUserInfoKey? { CodingUserInfoKey(rawValue: "org.parley.mapping.plan") }

    /// A read with the walker to run it with.
    final class Plan<Payload>: @unchecked Sendable {
        // Safety of @unchecked Sendable: `userInfo` asks for a `Sendable` value, and a plan is
        // not one only because its read may capture a model's metatype. A plan is made inside
        // `PayloadReading.run`, stored in the `userInfo` of a decoder that `run` made and that
        // no one else sees, read by `PlanRunner` during that decoder's synchronous `decode`
        // on the same thread, and released with the decoder before `run` returns
        // (`withoutActuallyEscaping` checks that nothing kept the read). It never crosses a
        // thread.
        let read: PayloadRead<Payload>
        let walker: KeyPathWalker

        init(read: @escaping PayloadRead<Payload>, walker: KeyPathWalker) {
            self.read = read
            self.walker = walker
        }
    }

    /// A read that did not reach its runner: a programming error inside this module.
    struct MissingReader: Error {}
}

/// The `Decodable` that `JSONDecoder` decodes at the root: it hands its decoder to the read.
private struct PlanRunner<Payload>: Decodable {
    var payload: Payload

    init(from decoder: any Decoder) throws {
        guard let key = PlanKey.userInfoKey,
            let plan = decoder.userInfo[key] as? PlanKey.Plan<Payload>
        else { throw PlanKey.MissingReader() }
        payload = try plan.read(RootDecoder(decoder), plan.walker, .root)
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
