/// The result code a server puts in its envelope, such as `200`, `"200"` or `"OK"`.
///
/// Mapping reads it from envelopes (its `BusinessError` and `EnvelopeHead` carry one), and
/// Feedback chooses a sentence by it; it lives here, below both, with
/// ``MessageDescribable``.
///
/// Servers disagree on whether a code is a number or a string, and some send both over
/// time; a `BusinessCode` accepts either. Two codes are equal when both read as integers
/// and the integers are equal (`200`, `"200"` and `"0200"` are one code), and otherwise
/// when their text is equal (`"OK"` is not `"ok"`). ``rawValue`` keeps the text as the
/// server sent it, for messages.
///
/// Write codes as literals of either kind:
///
/// ```swift
/// let successCodes: Set<BusinessCode> = [200, 0, "OK"]
/// ```
///
/// It is not the HTTP status: that is `HTTPResponse.Status`, checked by Mapping's `StatusPolicy`.
public struct BusinessCode: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    /// The code as the server wrote it: `"200"` for both `200` and `"200"`.
    public let rawValue: String
    /// The code as an integer, when its text is one (an optional sign, then digits).
    public let intValue: Int?
    /// Whether the server sent a JSON number (`true`) or a string (`false`); kept for encoding.
    private let isNumber: Bool

    /// Creates a numeric code.
    ///
    /// - Parameter value: The code, such as `200`.
    public init(_ value: Int) {
        self.rawValue = String(value)
        self.intValue = value
        self.isNumber = true
    }

    /// Creates a code from its text; text that reads as an integer equals that integer's code.
    ///
    /// - Parameter value: The code, such as `"OK"` or `"200"`.
    public init(_ value: String) {
        self.rawValue = value
        self.intValue = Int(value)
        self.isNumber = false
    }

    /// Creates a numeric code from an integer literal.
    ///
    /// - Parameter value: The code.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Creates a code from a string literal.
    ///
    /// - Parameter value: The code.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Reads a JSON number (whole, in `Int`'s range) or a JSON string.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.typeMismatch` for `null`, Booleans, fractions, arrays and objects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let int = try? container.decode(Int.self) {
            self.init(int)
        } else if let string = try? container.decode(String.self) {
            self.init(string)
        } else {
            throw DecodingError.typeMismatch(
                BusinessCode.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Expected a code as a whole number or a string."
                )
            )
        }
    }

    /// Writes the code as it was read: a number stays a number, a string a string.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if isNumber, let intValue {
            try container.encode(intValue)
        } else {
            try container.encode(rawValue)
        }
    }

    /// Equal when both are integers with the same value, or otherwise when the texts are equal.
    public static func == (lhs: BusinessCode, rhs: BusinessCode) -> Bool {
        if let left = lhs.intValue, let right = rhs.intValue { return left == right }
        return lhs.intValue == nil && rhs.intValue == nil && lhs.rawValue == rhs.rawValue
    }

    /// Hashes the integer value when there is one, otherwise the text, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        if let intValue {
            hasher.combine(0)
            hasher.combine(intValue)
        } else {
            hasher.combine(1)
            hasher.combine(rawValue)
        }
    }

    /// The code as the server wrote it.
    public var description: String { rawValue }
}
