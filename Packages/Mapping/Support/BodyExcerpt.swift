import Foundation
import Transport

/// A short, redacted glimpse of a body, for error messages.
///
/// The start of the body (16 KiB at most) is read as UTF-8, the values of keys that look
/// like credentials are replaced by `"<redacted>"` (JSON members, `key=value` pairs and
/// `Bearer`/`Basic` credentials), runs of whitespace become one space, and the result is cut
/// to ``limit`` characters. Redaction happens before the cut, on text that may itself be cut
/// in the middle of a value, so a secret is never shown even in part.
enum BodyExcerpt {
    /// The longest excerpt, in characters, ellipsis included.
    static let limit = 200
    /// How much of the body is read.
    static let scanLimit = 16 * 1024

    /// The excerpt of `body`, or `nil` when the body is empty or only whitespace.
    static func make(from body: Data) -> String? {
        let head = body.prefix(scanLimit)
        let text = String(decoding: head, as: UTF8.self)
        guard text.contains(where: { !$0.isWhitespace }) else { return nil }
        guard !looksBinary(text) else {
            return "<\(body.count) bytes that are not text>"
        }
        let redacted = redactCredentials(in: redactPairs(in: redactJSONMembers(in: text)))
        let collapsed = redacted.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > limit else { return collapsed }
        return String(collapsed.prefix(limit - 1)) + "…"
    }

    /// Whether a key's value must not be shown; see ``MappingError/redactedKeyFragments``.
    static func isSensitive(_ key: String) -> Bool { LogRedaction.isSensitive(key) }

    // MARK: - JSON members

    /// Replaces the value of every JSON member whose key is sensitive with `"<redacted>"`.
    ///
    /// A small scanner rather than a parser: it works on truncated or malformed JSON, and
    /// on JSON embedded in other text. A string followed by `:` is a key; its value, a
    /// string, a balanced object or array, or a bare word, is skipped to its end (or the end
    /// of the text).
    static func redactJSONMembers(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "\"" else {
                output.append(scalars[index])
                index += 1
                continue
            }
            let tokenStart = index
            let tokenEnd = endOfString(scalars, from: tokenStart)
            output.append(contentsOf: scalars[tokenStart..<tokenEnd])
            var next = tokenEnd
            while next < scalars.count, isJSONWhitespace(scalars[next]) { next += 1 }
            guard next < scalars.count, scalars[next] == ":" else {
                index = tokenEnd
                continue
            }
            output.append(contentsOf: scalars[tokenEnd...next])
            index = next + 1
            // A `:` follows, so the string is closed: its text lies between the two quotes.
            let key = String(String.UnicodeScalarView(scalars[(tokenStart + 1)..<(tokenEnd - 1)]))
            guard isSensitive(key) else { continue }
            while index < scalars.count, isJSONWhitespace(scalars[index]) {
                output.append(scalars[index])
                index += 1
            }
            index = endOfValue(scalars, from: index)
            output.append(contentsOf: "\"<redacted>\"".unicodeScalars)
        }
        return String(output)
    }

    /// The index just past the string that starts at `start` (a quote), or the end of the text.
    private static func endOfString(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start + 1
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 2
            case "\"": return index + 1
            default: index += 1
            }
        }
        return scalars.count
    }

    /// The index just past the JSON value that starts at `start`, or the end of the text.
    private static func endOfValue(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        guard start < scalars.count else { return start }
        switch scalars[start] {
        case "\"":
            return endOfString(scalars, from: start)
        case "{", "[":
            var depth = 0
            var index = start
            while index < scalars.count {
                switch scalars[index] {
                case "\"":
                    index = endOfString(scalars, from: index)
                    continue
                case "{", "[":
                    depth += 1
                case "}", "]":
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return scalars.count
        default:
            var index = start
            while index < scalars.count, !",}]".unicodeScalars.contains(scalars[index]),
                !isJSONWhitespace(scalars[index])
            {
                index += 1
            }
            return index
        }
    }

    private static func isJSONWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    // MARK: - Other text

    /// Replaces the value of every `key=value` pair whose key is sensitive (query strings,
    /// form bodies, log lines).
    static func redactPairs(in text: String) -> String {
        text.replacing(#/([A-Za-z0-9_.\-]+)=([^&\s"'<>,;]+)/#) { match in
            let key = String(match.output.1)
            return isSensitive(key) ? "\(key)=<redacted>" : String(match.output.0)
        }
    }

    /// Replaces `Bearer …` credentials (any case) and `Basic …` credentials (as a header
    /// spells it, so that prose such as "basic plan" survives), wherever they appear.
    static func redactCredentials(in text: String) -> String {
        text
            .replacing(#/(?i)\b(bearer)\s+[A-Za-z0-9\-._~+\/]+=*/#) { match in "\(match.output.1) <redacted>" }
            .replacing(#/\bBasic\s+[A-Za-z0-9+\/]{6,}={0,2}/#) { _ in "Basic <redacted>" }
    }

    /// Whether the text is mostly not text: control characters or bytes that are not UTF-8.
    private static func looksBinary(_ text: String) -> Bool {
        var odd = 0
        var total = 0
        for scalar in text.unicodeScalars.prefix(1024) {
            total += 1
            if scalar == "\u{FFFD}" || (scalar.value < 0x20 && !isJSONWhitespace(scalar)) { odd += 1 }
        }
        return total > 0 && odd * 10 > total
    }
}
