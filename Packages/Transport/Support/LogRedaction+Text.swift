extension LogRedaction {
    /// `text` with every credential it shows replaced by `<redacted>`, by the one rule of
    /// ``LogRedaction``: for error messages, log lines, notices and anything else a person or a
    /// log may read.
    ///
    /// In order:
    ///
    /// 1. the value of each JSON member whose key ``isSensitive(_:)`` becomes `"<redacted>"`
    ///    (a scanner, not a parser: truncated or malformed JSON, and JSON inside other text,
    ///    are redacted too);
    /// 2. each `scheme://…` URL goes through ``redactedURL(_:)``;
    /// 3. the value of each `name=value` pair whose name is sensitive (query strings, form
    ///    bodies, log lines) becomes `<redacted>`;
    /// 4. the rest of the line after a sensitive `name:` (a header line such as
    ///    `Authorization: Bearer …` or `Cookie: …`) becomes `<redacted>`;
    /// 5. `Bearer …` credentials (any case) and `Basic …` credentials (as a header spells them,
    ///    so that prose such as "basic plan" survives) become `Bearer <redacted>` and
    ///    `Basic <redacted>`.
    ///
    /// Each step is a scan of the text's UTF-8 bytes (every character the rule looks for is
    /// ASCII), a few microseconds for a message; text with nothing to redact is returned as
    /// it is. Applying the function twice changes nothing more, so text built from messages
    /// already redacted can go through it again.
    ///
    /// ```swift
    /// LogRedaction.redactedText("GET https://u:pw@h/v1?token=abc failed; Authorization: Bearer xyz")
    /// // "GET https://u:<redacted>@h/v1?token=<redacted> failed; Authorization: <redacted>"
    /// ```
    ///
    /// - Parameter text: Any text.
    /// - Returns: The text with credentials replaced; the same text when there are none.
    public static func redactedText(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var changed = false
        for step in [redactingJSONMembers, redactingURLs, redactingPairs, redactingFieldLines, redactingCredentials] {
            guard let redacted = step(bytes) else { continue }
            bytes = redacted
            changed = true
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// `<redacted>`, as bytes.
    private static let mark = Array(redactedMark.utf8)

    /// Copies `bytes` into an output as the steps replace parts of it.
    private struct Rewrite {
        let bytes: [UInt8]
        var output: [UInt8] = []
        /// Where the part not yet copied starts.
        var copied = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// Copies up to `start`, writes `replacement`, and goes on from `end`.
        mutating func replace(_ start: Int, _ end: Int, with replacement: [UInt8]) {
            output += bytes[copied..<start]
            output += replacement
            copied = end
        }

        /// The rewritten bytes, or `nil` when nothing was replaced.
        mutating func finish() -> [UInt8]? {
            guard copied > 0 || !output.isEmpty else { return nil }
            output += bytes[copied...]
            return output
        }
    }

    // MARK: - URLs

    /// The bytes of ``redactedURL(_:)``, or `nil` when the URL shows no credential.
    static func redactingURL(_ url: ArraySlice<UInt8>) -> [UInt8]? {
        let bytes = Array(url)
        var rewrite = Rewrite(bytes)
        let end = bytes.firstIndex(of: .hash) ?? bytes.count
        let queryStart = bytes[..<end].firstIndex(of: .questionMark) ?? end
        // The user information: between `://` and the last `@` before the path.
        if let colon = bytes[..<queryStart].firstIndex(of: .colon),
            bytes[colon...].starts(with: [.colon, .slash, .slash])
        {
            let authorityStart = colon + 3
            let authorityEnd = bytes[authorityStart..<queryStart].firstIndex(of: .slash) ?? queryStart
            if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: .at) {
                let passwordStart = bytes[authorityStart..<at].firstIndex(of: .colon).map { $0 + 1 } ?? authorityStart
                if !bytes[passwordStart..<at].elementsEqual(mark) { rewrite.replace(passwordStart, at, with: mark) }
            }
        }
        // The query's pairs; an empty value hides nothing (and is where text already redacted
        // stops a URL).
        var pairStart = queryStart + 1
        while pairStart < end {
            let pairEnd = bytes[pairStart..<end].firstIndex(of: .ampersand) ?? end
            if let equals = bytes[pairStart..<pairEnd].firstIndex(of: .equals), equals + 1 < pairEnd,
                !bytes[(equals + 1)..<pairEnd].elementsEqual(mark), isSensitiveQueryName(bytes[pairStart..<equals])
            {
                rewrite.replace(equals + 1, pairEnd, with: mark)
            }
            pairStart = pairEnd + 1
        }
        return rewrite.finish()
    }

    /// Runs every `scheme://…` URL through ``redactedURL(_:)``.
    private static func redactingURLs(_ bytes: [UInt8]) -> [UInt8]? {
        var rewrite = Rewrite(bytes)
        var index = 0
        while index + 2 < bytes.count {
            guard bytes[index] == .colon, bytes[index + 1] == .slash, bytes[index + 2] == .slash else {
                index += 1
                continue
            }
            var start = index
            while start > rewrite.copied, bytes[start - 1].isSchemeCharacter { start -= 1 }
            while start < index, !bytes[start].isLetter { start += 1 }
            var end = index + 3
            while end < bytes.count, !bytes[end].endsURL { end += 1 }
            guard start < index else {
                index = end
                continue
            }
            // Punctuation that ends a sentence or closes a bracket is not part of the URL.
            var urlEnd = end
            while urlEnd > index + 3, bytes[urlEnd - 1].isClosingPunctuation { urlEnd -= 1 }
            let url = String(decoding: bytes[start..<urlEnd], as: UTF8.self)
            let redacted = redactedURL(url)
            if redacted != url { rewrite.replace(start, urlEnd, with: Array(redacted.utf8)) }
            index = end
        }
        return rewrite.finish()
    }

    // MARK: - Pairs

    /// Replaces the value of every `name=value` pair whose name is sensitive (query strings,
    /// form bodies, log lines).
    private static func redactingPairs(_ bytes: [UInt8]) -> [UInt8]? {
        var rewrite = Rewrite(bytes)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == .equals else {
                index += 1
                continue
            }
            var keyStart = index
            while keyStart > rewrite.copied, bytes[keyStart - 1].isPairNameCharacter { keyStart -= 1 }
            var valueEnd = index + 1
            while valueEnd < bytes.count, !bytes[valueEnd].endsPairValue { valueEnd += 1 }
            guard keyStart < index, valueEnd > index + 1 else {
                index += 1
                continue
            }
            if isSensitive(String(decoding: bytes[keyStart..<index], as: UTF8.self)) {
                rewrite.replace(index + 1, valueEnd, with: mark)
            }
            index = valueEnd
        }
        return rewrite.finish()
    }

    // MARK: - Field lines

    /// Replaces the rest of each line after a sensitive `name:` (a header line, or prose that
    /// reads like one) with `<redacted>`.
    ///
    /// A name followed by nothing, by `//` (a URL's scheme) or by `<redacted>` alone is left
    /// alone.
    private static func redactingFieldLines(_ bytes: [UInt8]) -> [UInt8]? {
        var rewrite = Rewrite(bytes)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == .colon else {
                index += 1
                continue
            }
            var nameEnd = index
            while nameEnd > rewrite.copied, bytes[nameEnd - 1].isBlank { nameEnd -= 1 }
            var nameStart = nameEnd
            while nameStart > rewrite.copied, bytes[nameStart - 1].isFieldNameCharacter { nameStart -= 1 }
            while nameStart < nameEnd, !bytes[nameStart].isLetter { nameStart += 1 }
            guard nameStart < nameEnd, isSensitive(String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)) else {
                index += 1
                continue
            }
            var valueStart = index + 1
            while valueStart < bytes.count, bytes[valueStart].isBlank { valueStart += 1 }
            var lineEnd = valueStart
            while lineEnd < bytes.count, bytes[lineEnd] != .lineFeed, bytes[lineEnd] != .carriageReturn { lineEnd += 1 }
            let value = bytes[valueStart..<lineEnd]
            guard !value.isEmpty, !value.starts(with: [.slash, .slash]), !value.elementsEqual(mark) else {
                index += 1
                continue
            }
            rewrite.replace(index + 1, lineEnd, with: [.space] + mark)
            index = lineEnd
        }
        return rewrite.finish()
    }

    // MARK: - Credentials

    /// Replaces `Bearer …` credentials (any case) and `Basic …` credentials (as a header
    /// spells it, so that prose such as "basic plan" survives), wherever they appear.
    private static func redactingCredentials(_ bytes: [UInt8]) -> [UInt8]? {
        var rewrite = Rewrite(bytes)
        var index = 0
        let bearer = Array("bearer".utf8)
        let basic = Array("Basic".utf8)
        while index < bytes.count {
            let startsWord = index == 0 || !bytes[index - 1].isWordCharacter
            let isBearer =
                startsWord && index + bearer.count <= bytes.count
                && zip(bytes[index..<(index + bearer.count)], bearer).allSatisfy { $0 | 0x20 == $1 }
            let isBasic = !isBearer && startsWord && bytes[index...].starts(with: basic)
            guard isBearer || isBasic else {
                index += 1
                continue
            }
            let schemeEnd = index + (isBearer ? bearer.count : basic.count)
            var tokenStart = schemeEnd
            while tokenStart < bytes.count, bytes[tokenStart].isWhitespace { tokenStart += 1 }
            var tokenEnd = tokenStart
            let inToken: (UInt8) -> Bool = isBearer ? \.isBearerTokenCharacter : \.isBase64Character
            while tokenEnd < bytes.count, inToken(bytes[tokenEnd]) { tokenEnd += 1 }
            let longEnough = tokenEnd - tokenStart >= (isBearer ? 1 : 6)
            guard tokenStart > schemeEnd, longEnough else {
                index = schemeEnd
                continue
            }
            var padding = 0
            while tokenEnd < bytes.count, bytes[tokenEnd] == .equals, isBearer || padding < 2 {
                tokenEnd += 1
                padding += 1
            }
            rewrite.replace(schemeEnd, tokenEnd, with: [.space] + mark)
            index = tokenEnd
        }
        return rewrite.finish()
    }

    // MARK: - JSON members

    /// Replaces the value of every JSON member whose key is sensitive with `"<redacted>"`.
    ///
    /// A small scanner rather than a parser: it works on truncated or malformed JSON, and on
    /// JSON embedded in other text. A string followed by `:` is a key; its value, a string, a
    /// balanced object or array, or a bare word, is skipped to its end (or the end of the text).
    private static func redactingJSONMembers(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.contains(.quote), bytes.contains(.colon) else { return nil }
        var rewrite = Rewrite(bytes)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == .quote else {
                index += 1
                continue
            }
            let keyEnd = endOfString(bytes, from: index)
            var colon = keyEnd
            while colon < bytes.count, bytes[colon].isWhitespace { colon += 1 }
            guard colon < bytes.count, bytes[colon] == .colon else {
                index = keyEnd
                continue
            }
            // A `:` follows, so the string is closed: its text lies between the two quotes.
            let key = String(decoding: bytes[(index + 1)..<(keyEnd - 1)], as: UTF8.self)
            var valueStart = colon + 1
            while valueStart < bytes.count, bytes[valueStart].isWhitespace { valueStart += 1 }
            let valueEnd = endOfValue(bytes, from: valueStart)
            let quotedMark = [UInt8.quote] + mark + [.quote]
            if isSensitive(key), !bytes[valueStart..<valueEnd].elementsEqual(quotedMark) {
                rewrite.replace(valueStart, valueEnd, with: quotedMark)
                index = valueEnd
            } else {
                index = colon + 1
            }
        }
        return rewrite.finish()
    }

    /// The index just past the string that starts at `start` (a quote), or the end of the text.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case .backslash: index += 2
            case .quote: return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index just past the JSON value that starts at `start`, or the end of the text.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case .quote:
            return endOfString(bytes, from: start)
        case .openBrace, .openBracket:
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case .quote:
                    index = endOfString(bytes, from: index)
                    continue
                case .openBrace, .openBracket:
                    depth += 1
                case .closeBrace, .closeBracket:
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, bytes[index] != .comma, bytes[index] != .closeBrace,
                bytes[index] != .closeBracket, !bytes[index].isWhitespace
            {
                index += 1
            }
            return index
        }
    }
}

/// The ASCII bytes and classes the redaction steps scan for.
extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let hash = UInt8(ascii: "#")
    fileprivate static let questionMark = UInt8(ascii: "?")
    fileprivate static let ampersand = UInt8(ascii: "&")
    fileprivate static let at = UInt8(ascii: "@")

    fileprivate var isLetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isAlphanumeric: Bool { isLetter || isDigit }
    /// A space or a tab.
    fileprivate var isBlank: Bool { self == .space || self == UInt8(ascii: "\t") }
    /// ASCII whitespace: space, tab, line feed, vertical tab, form feed, carriage return.
    fileprivate var isWhitespace: Bool { self == .space || (self >= 0x09 && self <= 0x0D) }
    /// A letter, digit or `_`, or a byte of a non-ASCII character: what `\b` sees as a word.
    fileprivate var isWordCharacter: Bool { isAlphanumeric || self == UInt8(ascii: "_") || self >= 0x80 }
    fileprivate var isSchemeCharacter: Bool {
        isAlphanumeric || self == UInt8(ascii: "+") || self == UInt8(ascii: ".") || self == UInt8(ascii: "-")
    }
    /// What ends a URL in running text: whitespace, quotes, angle brackets, a backtick.
    fileprivate var endsURL: Bool {
        isWhitespace || self == .quote || self == UInt8(ascii: "'") || self == UInt8(ascii: "<")
            || self == UInt8(ascii: ">") || self == UInt8(ascii: "`")
    }
    fileprivate var isClosingPunctuation: Bool {
        switch self {
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "!"),
            UInt8(ascii: "?"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
            true
        default: false
        }
    }
    fileprivate var isPairNameCharacter: Bool {
        isAlphanumeric || self == UInt8(ascii: "_") || self == UInt8(ascii: ".") || self == UInt8(ascii: "-")
    }
    /// What ends a pair's value: `&`, whitespace, quotes, angle brackets, `,` and `;`.
    fileprivate var endsPairValue: Bool {
        self == UInt8(ascii: "&") || isWhitespace || self == .quote || self == UInt8(ascii: "'")
            || self == UInt8(ascii: "<") || self == UInt8(ascii: ">") || self == .comma || self == UInt8(ascii: ";")
    }
    fileprivate var isFieldNameCharacter: Bool {
        isAlphanumeric || self == UInt8(ascii: "_") || self == UInt8(ascii: "-")
    }
    fileprivate var isBearerTokenCharacter: Bool {
        isAlphanumeric || self == UInt8(ascii: "-") || self == UInt8(ascii: ".") || self == UInt8(ascii: "_")
            || self == UInt8(ascii: "~") || self == UInt8(ascii: "+") || self == .slash
    }
    fileprivate var isBase64Character: Bool { isAlphanumeric || self == UInt8(ascii: "+") || self == .slash }
}
