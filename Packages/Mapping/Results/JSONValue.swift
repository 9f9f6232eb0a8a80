/// Any JSON value, as a Swift value: for bodies without a model.
///
/// `JSONValue` is what ``ResponseDecoder/json(from:at:in:)-(DataResponse,_,_)`` returns. It is `Sendable`,
/// `Hashable` and `Codable`, so it crosses tasks, compares in tests and encodes back to the
/// same JSON. Whole numbers decode as ``int(_:)`` (when they fit in an `Int`) and other
/// numbers as ``double(_:)``, so identifiers above 2^53 keep every digit:
///
/// ```swift
/// let forecast = try decoder.json(from: response)
/// forecast["data"]?["three_day_forecast"]?[1]?["conditions"]?.stringValue   // "Showers"
/// ```
///
/// Literals build values directly: `let body: JSONValue = ["code": 200, "data": .null]`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number with a whole value that fits in an `Int` (`20`, and also `20.0` or `2e1`).
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; the order of its keys is not kept.
    case object([String: JSONValue])
}

// MARK: - Access

extension JSONValue {
    /// The member `key` of an object; `nil` for a missing key or when this is not an object.
    ///
    /// - Parameter key: The object key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` when out of range or when this is not an array.
    ///
    /// - Parameter index: The zero-based index.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The value at a key path; `nil` when the path leads nowhere.
    ///
    /// - Parameter path: Keys and indices, such as `"data.three_day_forecast.1"`.
    public subscript(path path: JSONKeyPath) -> JSONValue? {
        var value: JSONValue? = self
        for component in path.components {
            switch value {
            case .object(let members): value = members[component]
            case .array: value = Int(component).flatMap { value?[$0] }
            default: return nil
            }
        }
        return value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number as an `Int`, when this is an integer or a double with no fraction in `Int`'s range.
    public var intValue: Int? {
        switch self {
        case .int(let int): int
        case .double(let double): Int(exactly: double)
        default: nil
        }
    }

    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }
}

// MARK: - Codable

extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of the JSON kinds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(members)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "The value is not a JSON value.")
            )
        }
    }

    /// Encodes the value as the JSON it stands for.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's errors, such as a non-finite ``double(_:)`` under `.throw`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .int(let int): try container.encode(int)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

// MARK: - Literals

// Not `ExpressibleByNilLiteral`: `nil` would then mean `.null` wherever a `JSONValue?` is
// expected (`value ?? nil`, `members["key"] = nil`), silently turning "absent" into `null`.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A double.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Description

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON with sorted keys, for messages and logs.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let bool): String(bool)
        case .int(let int): String(int)
        case .double(let double): String(double)
        case .string(let string): Self.quoted(string)
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }
                .map { Self.quoted($0.key) + ":" + $0.value.description }
                .joined(separator: ",") + "}"
        }
    }

    /// A short phrase naming the kind of the value and, for scalars, the value itself:
    /// `a string "hot"`, `the number 20`, `an array of 3 elements`, `an object with keys …`.
    var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let bool): return "the Boolean \(bool)"
        case .int(let int): return "the number \(int)"
        case .double(let double): return "the number \(double)"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            return "a string \(Self.quoted(shown))"
        case .array(let elements):
            return "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")"
        case .object(let members):
            guard !members.isEmpty else { return "an empty object" }
            let keys = members.keys.sorted()
            let shown = keys.prefix(6).map { "`\($0)`" }.joined(separator: ", ")
            return "an object with keys \(shown)\(keys.count > 6 ? " and \(keys.count - 6) more" : "")"
        }
    }

    /// The kind of the value, without the value: for places where the value may be a secret.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// `string` as a JSON string literal.
    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
