/// How many terminal columns text occupies, and how to cut it to fit.
///
/// A terminal gives most characters one column, East Asian wide and fullwidth characters
/// (`多伦多`, `ｆｕｌｌ`) and emoji shown as pictures (`☔`, `🌧️` with its `U+FE0F`, `👍🏽`, `🇨🇦`,
/// the keycap `1️⃣`, the ZWJ sequence `👩‍💻`) two, and combining marks, joiners and variation
/// selectors none. Widths are measured per grapheme cluster (a `Character`), the way current
/// terminals place them: a cluster is two columns when any of its scalars is an emoji with
/// emoji presentation (or is made one by `U+FE0F`, as the digit of a keycap is), and otherwise
/// as wide as its first scalar.
///
/// A cluster holding a control character (a tab, a line break, an escape) or a bidi override
/// counts as one column: presenters draw each such cluster as one `�`, never the control
/// itself (``TerminalText/escaped(_:keepingLineBreaks:)``), so what is measured is what is drawn.
public enum TextWidth {
    /// The columns `text` occupies once drawn: as ``TerminalText/escaped(_:keepingLineBreaks:)``
    /// makes it, each cluster holding a control character or a bidi override replaced by one `�`.
    ///
    /// The replacement may join the cluster after it, which a control kept apart: a combining
    /// mark or an emoji modifier that followed the control now follows the `�`. So
    /// `"\u{0}\u{1F3FD}"`, three columns counted cluster by cluster, is drawn as one cluster of
    /// two, and is measured as two.
    public static func columns(of text: some StringProtocol) -> Int {
        guard text.unicodeScalars.contains(where: TerminalText.isUnsafe) else { return clusterColumns(of: text) }
        return clusterColumns(of: TerminalText.escaped(String(text)))
    }

    /// The sum of the columns of the grapheme clusters of `text`, each on its own.
    private static func clusterColumns(of text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += columns(of: character) }
        return total
    }

    /// The columns one grapheme cluster occupies: 0, 1 or 2.
    ///
    /// A cluster is as wide as its base, its first scalar that takes room: a prepended mark
    /// such as `U+0600` (ARABIC NUMBER SIGN) joins the character after it into one cluster and
    /// takes none itself, so `"\u{600}1"` is one column, like the `1`.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: TerminalText.isUnsafe) { return 1 }
        // A lone ASCII character is one column; one that `U+FE0F` or a keycap's `U+20E3`
        // follows (`1️⃣`, `#️⃣`) is an emoji, measured below.
        if first.value < 0x80, scalars.count == 1 { return 1 }
        let base = scalars.first { columns(ofScalar: $0) > 0 } ?? first
        for scalar in scalars {
            if scalar.properties.isEmojiPresentation { return 2 }
            if scalar.value == 0xFE0F, base.properties.isEmoji { return 2 }
        }
        return columns(ofScalar: base)
    }

    /// Whether a scalar is a C0 or C1 control or DEL. Presenters replace these with `�`, and the
    /// bidi controls too: ``TerminalText/isUnsafe(_:)`` is the whole set.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The width of a scalar on its own.
    static func columns(ofScalar scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control, .lineSeparator, .paragraphSeparator:
            return 0
        default:
            break
        }
        if scalar.value == 0x200B { return 0 }
        return isWide(scalar.value) ? 2 : 1
    }

    /// Whether a code point is East Asian Wide or Fullwidth (Unicode's EastAsianWidth.txt,
    /// in the blocks terminals agree on).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F,  // Hangul Jamo initial consonants
            0x231A...0x231B, 0x2329...0x232A,  // watch, hourglass, angle brackets
            0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols
            0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility, Kanbun, CJK compatibility
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul Jamo extended A
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19,  // vertical forms
            0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
            0xFF00...0xFF60,  // fullwidth forms
            0xFFE0...0xFFE6,  // fullwidth signs
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x2FFFD,  // CJK extensions B to F
            0x30000...0x3FFFD:  // CJK extension G and later
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending in `…` when something was cut.
    ///
    /// A wide character that would straddle the limit is left out whole, so the result may be
    /// one column narrower than `width`.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - width: The columns available; `0` gives an empty string.
    /// - Returns: `text` itself when it fits.
    public static func truncate(_ text: String, toColumns width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(of: text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = columns(of: character)
            // One column is kept for the ellipsis.
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` padded with spaces on the right to exactly `width` columns (cut first if needed).
    public static func pad(_ text: String, toColumns width: Int) -> String {
        let fitted = truncate(text, toColumns: width)
        let missing = width - columns(of: fitted)
        return missing > 0 ? fitted + String(repeating: " ", count: missing) : fitted
    }
}
