import Foundation
import HTTPTypes

/// A request target (`/path?query`) split into its path and decoded query items.
struct RequestTarget: Sendable {
    /// The target exactly as received.
    let raw: String
    /// The path, still percent-encoded.
    let path: String
    /// The path's segments without empty ones: `["redirect", "3"]` for `/redirect/3`.
    let segments: [Substring]
    /// The query items in order, names and values percent-decoded (`+` is kept as `+`).
    let queryItems: [(name: String, value: String)]

    /// Splits `raw`, a request target in origin form.
    init(_ raw: String) {
        self.raw = raw
        let parts = raw.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first.map(String.init) ?? "/"
        segments = path.split(separator: "/")
        let query = parts.count > 1 ? parts[1] : ""
        queryItems = query.split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = RequestTarget.percentDecoded(pair[0])
            let value = pair.count > 1 ? RequestTarget.percentDecoded(pair[1]) : ""
            return (name, value)
        }
    }

    /// The first value of the query item `name`, if there is one.
    func value(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The first value of `name` as an integer in `range`, `defaultValue` when absent.
    ///
    /// - Throws: ``RouteError`` (400) when the value is present but not an integer in `range`.
    func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        return try RequestTarget.integer(text, named: name, in: range)
    }

    /// The query items grouped by name, values in order: `{"a": ["1", "2"]}`.
    var groupedQuery: [String: [String]] {
        var grouped: [String: [String]] = [:]
        for item in queryItems {
            grouped[item.name, default: []].append(item.value)
        }
        return grouped
    }

    /// Parses `text` as an integer in `range`.
    ///
    /// - Throws: ``RouteError`` (400) naming the parameter when it is not.
    static func integer(_ text: some StringProtocol, named name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw RouteError(
                .badRequest, "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    private static func percentDecoded(_ text: Substring) -> String {
        let string = String(text)
        return string.removingPercentEncoding ?? string
    }
}
