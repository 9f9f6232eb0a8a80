import Foundation
import Transport

/// A short, redacted glimpse of a body, for error messages.
///
/// The start of the body (16 KiB at most) is read as UTF-8, credentials are replaced by
/// `<redacted>` by Transport's one rule, `LogRedaction.redactedText` (JSON members and
/// `key=value` pairs under names that look like credentials, header lines, URLs' passwords,
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
        let redacted = LogRedaction.redactedText(text)
        let collapsed = redacted.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > limit else { return collapsed }
        return String(collapsed.prefix(limit - 1)) + "…"
    }

    /// Whether a key's value must not be shown; see ``MappingError/redactedKeyFragments``.
    static func isSensitive(_ key: String) -> Bool { LogRedaction.isSensitive(key) }

    /// Whether the text is mostly not text: control characters or bytes that are not UTF-8.
    private static func looksBinary(_ text: String) -> Bool {
        var odd = 0
        var total = 0
        for scalar in text.unicodeScalars.prefix(1024) {
            total += 1
            let isWhitespace = scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
            if scalar == "\u{FFFD}" || (scalar.value < 0x20 && !isWhitespace) { odd += 1 }
        }
        return total > 0 && odd * 10 > total
    }
}
