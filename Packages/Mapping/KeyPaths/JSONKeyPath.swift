/// A route into a JSON document: object keys and array indices separated by dots.
///
/// Write a key path as a string literal. Each component names an object key as the JSON
/// spells it; a component made only of decimal digits indexes an array when the value at
/// that point is an array (and is an ordinary key when it is an object):
///
/// ```swift
/// let forecast: JSONKeyPath = "data"                          // {"data": {...}}
/// let days: JSONKeyPath = "data.three_day_forecast"           // {"data": {"three_day_forecast": [...]}}
/// let second: JSONKeyPath = "data.three_day_forecast.1.conditions"
/// ```
///
/// The empty key path, ``root``, is the whole document, which may be an object, an array or
/// a scalar. Empty components are dropped, so `"data."` and `"data"` are the same path; a key
/// that contains a dot, or an empty key, is addressed with ``init(components:)``.
public struct JSONKeyPath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The components in order, outermost first; empty for ``root``.
    public var components: [String]

    /// The whole document.
    public static let root = JSONKeyPath(components: [])

    /// Creates a key path from dot-separated components.
    ///
    /// - Parameter path: Components separated by `.`, such as `"items.0.name"`. Empty
    ///   components are dropped; the empty string is ``root``.
    public init(_ path: String) {
        if !path.isEmpty, !path.utf8.contains(UInt8(ascii: ".")) {
            // One component, the usual case (`data`, `code`): no split, one array.
            self.components = [path]
        } else {
            self.components = path.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
        }
    }

    /// Creates a key path from components used verbatim, dots and empty strings included.
    ///
    /// - Parameter components: The keys and indices, outermost first.
    public init(components: [String]) {
        self.components = components
    }

    /// Creates a key path from a string literal; see ``init(_:)``.
    ///
    /// - Parameter value: Components separated by `.`.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Whether this is the whole document.
    public var isRoot: Bool { components.isEmpty }

    /// The components joined by dots, or `<root>` for the whole document.
    public var description: String { isRoot ? "<root>" : components.joined(separator: ".") }

    /// The path `lhs` followed by the path `rhs`.
    ///
    /// - Parameters:
    ///   - lhs: The outer path, such as an envelope's `data`.
    ///   - rhs: The path inside it.
    /// - Returns: The combined path.
    public static func + (lhs: JSONKeyPath, rhs: JSONKeyPath) -> JSONKeyPath {
        if lhs.components.isEmpty { return rhs }
        if rhs.components.isEmpty { return lhs }
        return JSONKeyPath(components: lhs.components + rhs.components)
    }

    /// The first `count` components, as a path.
    func prefix(_ count: Int) -> JSONKeyPath {
        JSONKeyPath(components: Array(components.prefix(count)))
    }
}
