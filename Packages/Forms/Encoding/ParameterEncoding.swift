public import Foundation
import HTTPTypes

/// How a form's parameters reach the server.
///
/// - ``urlQuery``: appended to the URL's query.
/// - ``formURLEncoded``: the body, as `application/x-www-form-urlencoded`.
/// - ``json``: the body, as `application/json`.
/// - ``automatic`` (the default): the query for `GET`, `HEAD` and `DELETE`, JSON otherwise.
///
/// Query and form encodings follow one documented convention, the one most servers parse
/// (Rails, PHP, Express's `qs`):
///
/// | Value | Encoded as |
/// |---|---|
/// | `["city": "São Paulo"]` | `city=S%C3%A3o%20Paulo` |
/// | `["tag": ["a", "b"]]` | `tag%5B%5D=a&tag%5B%5D=b` (`tag[]=a&tag[]=b`) |
/// | `["filter": ["min": 1]]` | `filter%5Bmin%5D=1` (`filter[min]=1`) |
/// | `["on": true]` | `on=true` |
///
/// Keys are sorted, so the same parameters always give the same bytes; only RFC 3986's
/// unreserved characters are left unescaped.
public struct ParameterEncoding: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case automatic
        case urlQuery
        case formURLEncoded
        case json
    }

    let kind: Kind

    /// The query for `GET`, `HEAD` and `DELETE`, JSON for every other method.
    public static let automatic = ParameterEncoding(kind: .automatic)
    /// The URL's query string.
    public static let urlQuery = ParameterEncoding(kind: .urlQuery)
    /// An `application/x-www-form-urlencoded` body.
    public static let formURLEncoded = ParameterEncoding(kind: .formURLEncoded)
    /// An `application/json` body.
    public static let json = ParameterEncoding(kind: .json)

    /// The encoding's name.
    public var description: String { "\(kind)" }

    /// The encoding used for `method`: ``automatic`` resolved.
    func resolved(for method: HTTPRequest.Method) -> Kind {
        guard kind == .automatic else { return kind }
        return [.get, .head, .delete].contains(method) ? .urlQuery : .json
    }

    /// `name=value` pairs joined with `&`, percent-encoded per the convention above.
    ///
    /// - Throws: ``FormError`` for a value that is not a string, number, boolean, array or dictionary.
    public static func queryString(from parameters: Parameters) throws -> String {
        var pairs: [String] = []
        for key in parameters.keys.sorted() {
            try appendPairs(key: key, value: parameters[key] as Any, into: &pairs)
        }
        return pairs.joined(separator: "&")
    }

    private static func appendPairs(key: String, value: Any, into pairs: inout [String]) throws {
        switch value {
        case let dictionary as [String: any Sendable]:
            for inner in dictionary.keys.sorted() {
                try appendPairs(key: "\(key)[\(inner)]", value: dictionary[inner] as Any, into: &pairs)
            }
        case let dictionary as [String: Any]:
            for inner in dictionary.keys.sorted() {
                try appendPairs(key: "\(key)[\(inner)]", value: dictionary[inner] as Any, into: &pairs)
            }
        case let array as [Any]:
            for element in array { try appendPairs(key: "\(key)[]", value: element, into: &pairs) }
        default:
            pairs.append("\(escape(key))=\(escape(try scalarText(value, key: key)))")
        }
    }

    private static func scalarText(_ value: Any, key: String) throws -> String {
        switch value {
        case let string as String: return string
        case let bool as Bool: return bool ? "true" : "false"
        case let integer as Int: return String(integer)
        case let integer as Int64: return String(integer)
        case let integer as UInt: return String(integer)
        case let double as Double: return String(double)
        case let float as Float: return String(float)
        case let decimal as Decimal: return "\(decimal)"
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        default:
            throw FormError(
                .invalidParameters,
                message: "The parameter \"\(key)\" has a value of type \(type(of: value)), which cannot be encoded; "
                    + "use strings, numbers, booleans, arrays or dictionaries of those.")
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(digits[Int(byte >> 4)])
                result.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// The parameters as a JSON object.
    ///
    /// - Throws: ``FormError`` when a value cannot be represented in JSON.
    public static func jsonData(from parameters: Parameters) throws -> Data {
        let object = try jsonObject(parameters, path: "")
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw FormError(.invalidParameters, message: "The parameters cannot be encoded as JSON: \(error).")
        }
    }

    private static func jsonObject(_ value: Any, path: String) throws -> Any {
        switch value {
        case let dictionary as [String: any Sendable]:
            var result: [String: Any] = [:]
            for (key, inner) in dictionary {
                result[key] = try jsonObject(inner, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return result
        case let dictionary as [String: Any]:
            var result: [String: Any] = [:]
            for (key, inner) in dictionary {
                result[key] = try jsonObject(inner, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return result
        case let array as [Any]:
            return try array.enumerated().map { try jsonObject($1, path: "\(path).\($0)") }
        case is String, is Bool, is Int, is Int64, is UInt, is Double, is Float, is NSNull:
            return value
        case let decimal as Decimal:
            return NSDecimalNumber(decimal: decimal)
        case let url as URL:
            return url.absoluteString
        case let uuid as UUID:
            return uuid.uuidString
        default:
            throw FormError(
                .invalidParameters,
                message: "The parameter \"\(path)\" has a value of type \(type(of: value)), which JSON cannot hold.")
        }
    }
}
