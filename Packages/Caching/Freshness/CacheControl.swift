package import HTTPTypes

/// The directives of the `Cache-Control` fields of a request or a response (RFC 9111 §5.2).
///
/// Every `Cache-Control` field of the message is read, in order, as one comma-separated list.
/// Directive names are case-insensitive; an argument is a token or a quoted string. Parsing
/// never fails: a malformed member is kept as written, and the accessors below read a
/// malformed or repeated numeric argument the way RFC 9111 §4.2.1 asks (the response is
/// then stale).
///
/// ```swift
/// let control = CacheControl(response.head.headerFields)
/// if control.noStore { return }
/// let lifetime = control.maxAge   // .seconds(60), .invalid, or nil when absent
/// ```
package struct CacheControl: Sendable, Hashable {
    /// A directive and its argument, if it has one; the name lowercased, the argument unquoted.
    package struct Directive: Sendable, Hashable {
        /// The directive's name, lowercased: `max-age`, `no-cache`.
        package var name: String
        /// The argument after `=`, without its quotes; `nil` when there is none.
        package var argument: String?

        /// Creates a directive.
        package init(name: String, argument: String? = nil) {
            self.name = name
            self.argument = argument
        }
    }

    /// A numeric directive's value: a number of seconds, or present but not usable.
    package enum Seconds: Sendable, Hashable {
        /// A valid delta-seconds value (RFC 9111 §1.2.2); values too large for an `Int64` are
        /// read as the largest one, as the RFC allows.
        case seconds(Int64)
        /// The directive is there, but its argument is missing, not a number, or repeated with
        /// different values.
        case invalid
    }

    /// Every directive, in the order the fields list them.
    package var directives: [Directive]

    /// No directives: a message without `Cache-Control`.
    package init() {
        directives = []
    }

    /// Parses the `Cache-Control` fields of `fields`.
    ///
    /// - Parameter fields: A request's or a response's header fields.
    package init(_ fields: HTTPFields) {
        let values = fields[values: .cacheControl]
        directives = values.flatMap { Self.parse($0) }
    }

    /// Parses one field value, such as `max-age=60, must-revalidate`.
    ///
    /// - Parameter value: A `Cache-Control` field value.
    package init(parsing value: String) {
        directives = Self.parse(value)
    }

    /// Whether the directive `name` (lowercase) is present, with or without an argument.
    package func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The value of a numeric directive such as `max-age`, or `nil` when it is absent.
    ///
    /// - Parameter name: The directive's lowercase name.
    /// - Returns: ``Seconds/seconds(_:)`` for one valid value (or the same value repeated),
    ///   ``Seconds/invalid`` for a missing, malformed or conflicting one.
    package func seconds(_ name: String) -> Seconds? {
        let arguments = directives.filter { $0.name == name }.map(\.argument)
        guard let first = arguments.first else { return nil }
        guard let text = first, let value = Self.deltaSeconds(text) else { return .invalid }
        for other in arguments.dropFirst() where other.flatMap(Self.deltaSeconds) != value {
            return .invalid
        }
        return .seconds(value)
    }

    /// `no-store`: the message is never stored.
    package var noStore: Bool { contains("no-store") }
    /// `no-cache` (qualified or not): a stored response is never used without validation.
    ///
    /// A qualified `no-cache="Set-Cookie"` is read as the unqualified form, which RFC 9111
    /// §5.2.2.4 allows.
    package var noCache: Bool { contains("no-cache") }
    /// `max-age`.
    package var maxAge: Seconds? { seconds("max-age") }
    /// `s-maxage`: for shared caches only; read here for the `Authorization` rule alone.
    package var sharedMaxAge: Seconds? { seconds("s-maxage") }
    /// `must-revalidate`: once stale, never used without validation.
    package var mustRevalidate: Bool { contains("must-revalidate") }
    /// `public`.
    package var isPublic: Bool { contains("public") }
    /// `private`: a private cache such as this one may store the response.
    package var isPrivate: Bool { contains("private") }
    /// `max-stale` in a request: `.some(nil)` for any staleness, `.some(n)` for at most `n`
    /// seconds, `nil` when absent. A malformed argument is read as absent.
    package var maxStale: Int64?? {
        guard let directive = directives.first(where: { $0.name == "max-stale" }) else { return nil }
        guard let argument = directive.argument else { return .some(nil) }
        guard let value = Self.deltaSeconds(argument) else { return nil }
        return .some(value)
    }
    /// `min-fresh` in a request, in seconds; `nil` when absent or malformed.
    package var minFresh: Int64? {
        if case .seconds(let value) = seconds("min-fresh") { return value }
        return nil
    }
    /// `only-if-cached` in a request: answer from the cache or with `504`.
    package var onlyIfCached: Bool { contains("only-if-cached") }
    /// `stale-while-revalidate` in a response (RFC 5861 §3), in seconds: how long after it goes
    /// stale it may still answer while it is revalidated in the background; `nil` when absent
    /// or malformed.
    package var staleWhileRevalidate: Int64? {
        if case .seconds(let value) = seconds("stale-while-revalidate") { return value }
        return nil
    }
    /// `stale-if-error` in a response or a request (RFC 5861 §4), in seconds: how long after it
    /// goes stale it may answer when the server fails; `nil` when absent or malformed.
    package var staleIfError: Int64? {
        if case .seconds(let value) = seconds("stale-if-error") { return value }
        return nil
    }

    /// Reads delta-seconds (RFC 9111 §1.2.2): one or more ASCII digits; too large a value is
    /// the largest `Int64`.
    static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text) ?? Int64.max
    }

    /// Splits a field value into directives, honouring quoted strings (a comma inside quotes
    /// does not end a directive).
    ///
    /// The value is read scalar by scalar, as HTTP's grammar reads bytes, not by grapheme
    /// clusters: a comma, quote or `=` followed by a combining mark is still a separator.
    private static func parse(_ value: String) -> [Directive] {
        var result: [Directive] = []
        var members: [String] = []
        var current = String.UnicodeScalarView()
        var inQuotes = false
        var escaped = false
        for scalar in value.unicodeScalars {
            if escaped {
                current.append(scalar)
                escaped = false
                continue
            }
            switch scalar {
            case "\\" where inQuotes:
                current.append(scalar)
                escaped = true
            case "\"":
                inQuotes.toggle()
                current.append(scalar)
            case "," where !inQuotes:
                members.append(String(current))
                current = String.UnicodeScalarView()
            default:
                current.append(scalar)
            }
        }
        members.append(String(current))
        for member in members {
            let trimmed = member.trimmingSpaces().unicodeScalars
            guard !trimmed.isEmpty else { continue }
            let equals = trimmed.firstIndex(of: "=")
            let name = String(String.UnicodeScalarView(trimmed[..<(equals ?? trimmed.endIndex)])).trimmingSpaces()
                .lowercased()
            guard !name.isEmpty else { continue }
            var argument: String?
            if let equals {
                let text = String(String.UnicodeScalarView(trimmed[trimmed.index(after: equals)...]))
                argument = unquoted(text.trimmingSpaces())
            }
            result.append(Directive(name: name, argument: argument))
        }
        return result
    }

    /// The text of a quoted string without its quotes and escapes; other text as it is.
    private static func unquoted(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return text }
        var result = String.UnicodeScalarView()
        var escaped = false
        for scalar in scalars.dropFirst().dropLast() {
            if escaped {
                result.append(scalar)
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}

extension String {
    /// The string without leading and trailing spaces and horizontal tabs (HTTP's OWS).
    ///
    /// Scalars, not grapheme clusters: a space followed by a combining mark is still trimmed.
    func trimmingSpaces() -> String {
        var view = Substring(self).unicodeScalars
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
