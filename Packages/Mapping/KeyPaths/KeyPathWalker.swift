import Transport

/// Follows a ``JSONKeyPath`` inside a decoder that is already reading a document, and
/// decodes the value it leads to in place.
///
/// The walker asks the decoder for keyed and unkeyed containers along the path and moves
/// down with `superDecoder(forKey:)` and `superDecoder()`, so the document is parsed once,
/// by the `JSONDecoder` that started the decoding, and nothing is re-serialised. The last
/// step decodes the target with the container's own `decode(_:forKey:)` or `decode(_:)`,
/// which is where `JSONDecoder` applies its date and data strategies.
///
/// A component made of decimal digits indexes an array when the value is an array; every
/// other component is an object key, converted with the key strategy of the options (so
/// paths are written as the JSON spells its keys) and, failing that, looked up verbatim.
struct KeyPathWalker {
    /// The options of the decoder that runs the walk; used for key conversion.
    var options: DecodingOptions

    /// Where a component leads: a member of an object or an element of an array.
    private enum Location {
        case member(KeyedDecodingContainer<AnyCodingKey>, AnyCodingKey)
        case element(any UnkeyedDecodingContainer)
    }

    /// Decodes the value at `path`.
    ///
    /// When the last component is absent (or its parent is `null`) and `T` is an `Optional`,
    /// the result is `nil`; a `null` value decodes as `nil` for an `Optional` as always. An
    /// absent component before the last is an error whatever `T` is, so a misspelt path is
    /// reported rather than read as "no value".
    ///
    /// - Throws: ``KeyPathError`` when the path leads nowhere, or the decoder's
    ///   `DecodingError` when the value does not decode as `T`.
    func decode<T: Decodable>(_ type: T.Type, from root: any Decoder, at path: JSONKeyPath) throws -> T {
        guard !path.isRoot else { return try root.singleValueContainer().decode(T.self) }
        if let (tape, index) = tapeIndex(of: path, in: root) { return try tape.decode(T.self, at: index) }
        let lastDepth = path.components.count - 1
        let parent = try descend(from: root, along: path, depth: lastDepth)
        let location: Location
        do {
            location = try locate(depth: lastDepth, of: path, in: parent)
        } catch let error as KeyPathError where error.isAbsence {
            return try Self.absentValue(T.self, else: error)
        }
        switch location {
        case .member(let container, let key):
            return try Self.namingTheValue(key, below: container.codingPath) {
                try container.decode(T.self, forKey: key)
            }
        case .element(var container):
            let index = AnyCodingKey(indexed: container.currentIndex)
            return try Self.namingTheValue(index, below: container.codingPath) { try container.decode(T.self) }
        }
    }

    /// What an absent last component decodes to: `nil` when `T` is an `Optional`, else `error`.
    ///
    /// Apart from ``decode(_:from:at:)``, which would otherwise hold an `Optional<T>` on every
    /// call and look up its metadata in the runtime's cache first.
    @inline(never)
    private static func absentValue<T>(_ type: T.Type, else error: KeyPathError) throws -> T {
        if let absent = (T.self as? any AbsentDecodable.Type)?.absent as? T { return absent }
        throw error
    }

    /// Runs `decode`, adding `key` to the coding path of a `dataCorrupted` error that stops
    /// at the container: Foundation's `JSONDecoder` reports a date that does not parse at
    /// the path of the object holding it, not at the date itself.
    private static func namingTheValue<T>(
        _ key: AnyCodingKey,
        below containerPath: [any CodingKey],
        _ decode: () throws -> T
    ) throws -> T {
        do {
            return try decode()
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == containerPath.count {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: containerPath + [key],
                    debugDescription: context.debugDescription,
                    underlyingError: context.underlyingError
                )
            )
        }
    }

    /// Decodes the value at `path`, or returns `nil` when the path is absent or passes
    /// through `null` at any depth.
    ///
    /// - Throws: ``KeyPathError`` when the path runs into a scalar, or the decoder's
    ///   `DecodingError` when the value does not decode as `T`.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, from root: any Decoder, at path: JSONKeyPath) throws -> T? {
        do {
            return try decode(T?.self, from: root, at: path)
        } catch let error as KeyPathError where error.isAbsence {
            return nil
        }
    }

    /// The whole number at `path`, when there is one there: what an envelope's code most often
    /// is (see ``rootScalar(_:of:tape:members:)``).
    func rootInteger(_ path: JSONKeyPath, of root: any Decoder) -> Int? {
        rootScalar(
            path, of: root, tape: { try $0.integer(Int.self, at: $1) },
            members: { try $0.decodeIfPresent(Int.self, forKey: $1) })
    }

    /// The string at `path`, when there is one there: what an envelope's message most often is
    /// (see ``rootScalar(_:of:tape:members:)``).
    func rootString(_ path: JSONKeyPath, of root: any Decoder) -> String? {
        rootScalar(
            path, of: root, tape: { try $0.string(at: $1) },
            members: { try $0.decodeIfPresent(String.self, forKey: $1) })
    }

    /// A scalar at `path` read the cheapest way in: on the tape (``tapeIndex(of:in:)``) with
    /// `tape`, otherwise, for a one-component path, through the root object's container
    /// (``rootMember(_:of:)``) with `members`. `nil` when that finds nothing, a `null` or another
    /// type; the general path then reads the value and tells a missing key from a null.
    private func rootScalar<T>(
        _ path: JSONKeyPath, of root: any Decoder, tape read: (TapeDocument, Int) throws -> T,
        members decode: (KeyedDecodingContainer<AnyCodingKey>, AnyCodingKey) throws -> T?
    ) -> T? {
        if let (tape, index) = tapeIndex(of: path, in: root) {
            return tape.document.isNull(index) ? nil : try? read(tape.document, index)
        }
        guard let (members, key) = rootMember(path, of: root) else { return nil }
        return try? decode(members, key)
    }

    /// Where `path` leads from the value the tape decoder `root` reads, found on the tape
    /// itself, when `root` is the tape decoder and every component is the key of a member of
    /// an object: the common case (an envelope's `code`, `message` and `data`, a payload at
    /// `data.items`) costs no keyed container per step, each of which looks up two generic
    /// types' metadata in the runtime's cache and allocates its box.
    ///
    /// - Returns: The decoder and the tape index of the value; `nil` for any other root or
    ///   path (an index, a missing key, a `null` or a scalar on the way), which the general
    ///   walk follows and reports as before.
    private func tapeIndex(of path: JSONKeyPath, in root: any Decoder) -> (TapeDecoder, Int)? {
        // Keys are taken as written: the tape decoder reads only documents whose keys are.
        guard let tape = Self.tapeDecoder(root) else { return nil }
        let document = tape.document
        var index = tape.index
        for component in path.components {
            guard Self.index(component) == nil, document.entry(index).kind == .object,
                let member = try? document.member(named: component, inObject: index)
            else { return nil }
            index = member
        }
        return (tape, index)
    }

    /// `decoder` as the tape decoder it is, or `nil`, asked for each scalar and the payload of
    /// every envelope (see `sameTypeValue(_:as:)`). `TapeDecoder` is final: no other type's
    /// values are tape decoders.
    private static func tapeDecoder<D: Decoder>(_ decoder: D) -> TapeDecoder? {
        sameTypeValue(decoder, as: TapeDecoder.self)
    }

    /// The root object's container and the key of a one-component `path` in it, when the
    /// root is an object: where a document's top-level scalars (an envelope's code and message)
    /// can be read through the container's own `Int` and `String` methods, which cost a
    /// fraction of a generic `decode` through the key-path machinery. Says nothing about
    /// whether the key is there: a caller that finds nothing takes the general path, which
    /// tells a missing key from a null.
    private func rootMember(_ path: JSONKeyPath, of root: any Decoder) -> Member? {
        guard path.components.count == 1, Self.index(path.components[0]) == nil,
            let members = try? root.container(keyedBy: AnyCodingKey.self)
        else { return nil }
        return (members, AnyCodingKey(options.convertedKey(path.components[0], codingPath: root.codingPath)))
    }

    /// An object's container and the key of one of its members.
    typealias Member = (container: KeyedDecodingContainer<AnyCodingKey>, key: AnyCodingKey)

    /// A decoder positioned at the value reached by the first `depth` components.
    private func descend(from root: any Decoder, along path: JSONKeyPath, depth: Int) throws -> any Decoder {
        var decoder = root
        for step in 0..<depth {
            switch try locate(depth: step, of: path, in: decoder) {
            case .member(let container, let key):
                decoder = try container.superDecoder(forKey: key)
            case .element(var container):
                decoder = try container.superDecoder()
            }
        }
        return decoder
    }

    /// Finds component `depth` of `path` in the value `decoder` reads.
    private func locate(depth: Int, of path: JSONKeyPath, in decoder: any Decoder) throws -> Location {
        let component = path.components[depth]
        if let index = Self.index(component), var elements = try? decoder.unkeyedContainer() {
            var skipped = 0
            while skipped < index, !elements.isAtEnd {
                _ = try elements.decode(Skipped.self)
                skipped += 1
            }
            guard !elements.isAtEnd else {
                let count = elements.count ?? skipped
                throw KeyPathError(path: path, depth: depth, reason: .indexOutOfRange(index, count: count))
            }
            return .element(elements)
        }
        if let members = try? decoder.container(keyedBy: AnyCodingKey.self) {
            let converted = options.convertedKey(component, codingPath: decoder.codingPath)
            let key = AnyCodingKey(converted)
            if members.contains(key) { return .member(members, key) }
            if converted != component {
                let verbatim = AnyCodingKey(component)
                if members.contains(verbatim) { return .member(members, verbatim) }
            }
            let available = members.allKeys.map(\.stringValue).sorted()
            throw KeyPathError(path: path, depth: depth, reason: .missingKey(component, available: available))
        }
        // Only what the error is: optional readers catch absences and move on, so describing
        // the value is left to the failure report, which runs when the error is shown.
        let isNull = (try? decoder.singleValueContainer().decodeNil()) ?? true
        throw KeyPathError(path: path, depth: depth, reason: isNull ? .null : .notAContainer)
    }

    /// The array index a component names: decimal digits only, no sign.
    private static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(component)
    }
}

/// A value that reads nothing: decoding it moves an unkeyed container past one element.
private struct Skipped: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// A type with a value that stands for "absent": `Optional`, whose absent value is `nil`.
protocol AbsentDecodable {
    /// The value of an absent key.
    static var absent: Self { get }
}

extension Optional: AbsentDecodable {
    static var absent: Self { nil }
}

/// A key path that could not be followed, and why.
struct KeyPathError: Error {
    /// Why the walk stopped.
    enum Reason: Sendable {
        /// The object at that point has no such key.
        case missingKey(String, available: [String])
        /// The array at that point is shorter.
        case indexOutOfRange(Int, count: Int)
        /// The value at that point is `null`.
        case null
        /// The value at that point is a scalar (or an array and the component is not a number).
        case notAContainer
    }

    /// The whole path that was followed.
    var path: JSONKeyPath
    /// The index of the component that could not be followed.
    var depth: Int
    /// Why.
    var reason: Reason

    /// Whether the walk stopped because something is not there (rather than is of the wrong kind).
    var isAbsence: Bool {
        switch reason {
        case .missingKey, .indexOutOfRange, .null: true
        case .notAContainer: false
        }
    }

    /// The path up to, not including, the component that failed.
    var reached: JSONKeyPath { path.prefix(depth) }

    /// What went wrong, as a sentence fragment naming the path.
    ///
    /// - Parameter found: What the value that could not be followed is, such as `a string`.
    func explanation(found: String) -> String {
        let component = path.components[depth]
        let place = depth == 0 ? "the document" : "`\(reached)`"
        switch reason {
        case .missingKey(_, let available):
            let keys = available.isEmpty ? "no keys" : "keys " + Self.list(available)
            return "\(place) has no key `\(component)` (it has \(keys))"
        case .indexOutOfRange(let index, let count):
            return "\(place) is an array of \(count) element\(count == 1 ? "" : "s"), so it has no index \(index)"
        case .null:
            return "\(place) is null, so it has no `\(component)`"
        case .notAContainer:
            return "\(place) is \(found), so it has no `\(component)`"
        }
    }

    /// At most eight names, back-quoted, then a count of the rest.
    private static func list(_ names: [String]) -> String {
        let shown = names.prefix(8).map { "`\($0)`" }.joined(separator: ", ")
        return names.count > 8 ? "\(shown) and \(names.count - 8) more" : shown
    }
}
