public import Foundation

/// How JSON is turned into values: the strategies of the `JSONDecoder` that reads a body.
///
/// A ``ResponseDecoder`` builds a fresh `JSONDecoder` from these options for every body, so
/// the options are a plain value that can be shared between tasks and changed by copy:
///
/// ```swift
/// var options = DecodingOptions()
/// options.keyDecodingStrategy = .convertFromSnakeCase
/// let decoder = ResponseDecoder(options: options)
/// ```
///
/// The defaults:
/// - keys are used as the JSON spells them (`.useDefaultKeys`). Converting from snake case is
///   an opt-in, because it silently renames every key, including those of dictionaries, and
///   a model that declares its `CodingKeys` gains nothing from it;
/// - dates are ISO 8601 strings such as `2024-05-01T12:00:00Z` or `2024-05-01T14:00:00.25+02:00`
///   (`.iso8601`: offsets applied, fractional seconds kept), what JSON APIs send, rather than
///   Foundation's own default of seconds since 2001;
/// - `Data` is Base64 (`.base64`), non-finite numbers are refused (`.throw`).
///
/// Key paths are written as the JSON spells its keys whatever the key strategy: under
/// `.convertFromSnakeCase` or `.custom`, each component is converted the same way before it
/// is looked up.
public struct DecodingOptions: Sendable {
    /// How object keys are mapped to coding keys; `.useDefaultKeys` by default.
    public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy
    /// How dates are read; `.iso8601` by default.
    public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy
    /// How `Data` is read; `.base64` by default.
    public var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy
    /// How `inf`, `-inf` and `nan` spelled as strings are read; `.throw` by default.
    public var nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy
    /// Context for the models' `init(from:)`, handed to the decoder's `userInfo`; empty by default.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates options.
    ///
    /// - Parameters:
    ///   - keyDecodingStrategy: How object keys are mapped; `.useDefaultKeys` by default.
    ///   - dateDecodingStrategy: How dates are read; `.iso8601` by default.
    ///   - dataDecodingStrategy: How `Data` is read; `.base64` by default.
    ///   - nonConformingFloatDecodingStrategy: How non-finite numbers are read; `.throw` by default.
    ///   - userInfo: Context for the models' `init(from:)`; empty by default.
    public init(
        keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys,
        dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .iso8601,
        dataDecodingStrategy: JSONDecoder.DataDecodingStrategy = .base64,
        nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy = .throw,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
        self.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        self.userInfo = userInfo
    }

    /// The defaults described on ``DecodingOptions``.
    public static let `default` = DecodingOptions()

    /// A new `JSONDecoder` configured with these options.
    func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = keyDecodingStrategy
        decoder.dateDecodingStrategy = dateDecodingStrategy
        decoder.dataDecodingStrategy = dataDecodingStrategy
        decoder.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        for (key, value) in userInfo { decoder.userInfo[key] = value }
        return decoder
    }

    /// The coding key a JSON object key becomes under ``keyDecodingStrategy``.
    ///
    /// - Parameters:
    ///   - key: The key as the JSON spells it.
    ///   - codingPath: The path of the object that holds the key (given to a `.custom` strategy).
    /// - Returns: The converted key's string value.
    func convertedKey(_ key: String, codingPath: @autoclosure () -> [any CodingKey]) -> String {
        // `if case` rather than `switch`: the enum is resilient on Darwin, and a `@unknown
        // default` would be unreachable (and a warning) where it is not.
        if case .custom(let convert) = keyDecodingStrategy {
            return convert(codingPath() + [AnyCodingKey(key)]).stringValue
        }
        if case .convertFromSnakeCase = keyDecodingStrategy {
            return Self.convertFromSnakeCase(key)
        }
        return key
    }

    /// Foundation's snake-case conversion: `three_day_forecast` becomes `threeDayForecast`.
    ///
    /// Leading and trailing underscores are kept; a key without inner underscores is
    /// unchanged; otherwise the first word is lowercased and the others capitalised.
    static func convertFromSnakeCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }),
            let last = key.lastIndex(where: { $0 != "_" })
        else { return key }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1, let head = words.first else { return key }
        let joined = ([head.lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}

extension DecodingOptions {
    /// How the key strategy reads an envelope's keys, so that two readings can be compared.
    enum KeyReading: Hashable {
        /// As written.
        case asWritten
        /// Converted from snake case.
        case fromSnakeCase
    }

    /// How keys are read; `nil` for a custom strategy, whose readings are never reused.
    var keyReading: KeyReading? {
        // `if case` rather than `switch`, as in `convertedKey(_:codingPath:)`.
        if case .useDefaultKeys = keyDecodingStrategy { return .asWritten }
        if case .convertFromSnakeCase = keyDecodingStrategy { return .fromSnakeCase }
        return nil
    }
}
