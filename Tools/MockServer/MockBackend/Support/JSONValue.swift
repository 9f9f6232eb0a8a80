import Foundation

/// A JSON document built in code, for the routes that answer with JSON.
///
/// Spelling `null` out matters to the tests (`"body": null` for a body that is not UTF-8), and
/// synthesised `Codable` would leave such keys out, so routes build these instead. A document
/// read from a file (a feature's canned routes) decodes into one as well.
enum JSONValue: Codable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// A number that may exceed `Int.max`, such as a 64-bit seed.
    case unsigned(UInt64)
    /// A number with a fraction, such as a rate.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A string, or `null` when `value` is `nil`.
    static func string(orNull value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// An object whose values are arrays of strings: `{"a": ["1", "2"]}`.
    static func stringLists(_ lists: [String: [String]]) -> JSONValue {
        .object(lists.mapValues { .array($0.map(JSONValue.string)) })
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let values = try? container.decode([JSONValue].self) {
            self = .array(values)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }

    /// The document as UTF-8, keys sorted so responses are byte-for-byte repeatable.
    func serialized() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(self))
    }
}
