import Foundation

/// A JSON document built in code, for the routes that answer with JSON.
///
/// Spelling `null` out matters to the tests (`"body": null` for a body that is not UTF-8), and
/// synthesised `Codable` would leave such keys out, so routes build these instead.
enum JSONValue: Encodable, Sendable {
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
