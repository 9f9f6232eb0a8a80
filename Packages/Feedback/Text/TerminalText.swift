/// Text from elsewhere made safe to write to a terminal: the one rule every presenter and
/// program applies to what a server (or a file, or a person) controls.
///
/// A terminal obeys control characters and escape sequences in what it is given: `ESC ] 0 ;`
/// sets the window's title, `ESC [ 2 J` clears the screen, `ESC [ 1 A` and `CR` move the
/// cursor over earlier lines, `U+009B` starts a sequence as `ESC [` does, and the bidi
/// overrides make text read as something else than it is. A server's message, a header value, a
/// reason phrase or a body excerpt may hold any of them. ``escaped(_:keepingLineBreaks:)``
/// replaces each grapheme cluster that holds one (``isUnsafe(_:)``) with one `�`, so an escape
/// sequence loses its `ESC` and the rest shows as plain characters (`�[2J`), and nothing moves
/// the cursor or changes the terminal. ``TextWidth`` measures such a cluster as the one column
/// of its `�`.
///
/// Apply it to text as it is written, not to the user's data: `parley-demo fetch` writes a
/// response body to standard output byte for byte, as `curl` does.
///
/// ```swift
/// TerminalText.escaped("Bad city \u{1B}]0;pwned\u{07}")   // "Bad city �]0;pwned�"
/// ```
public enum TerminalText {
    /// Whether a scalar must never reach a terminal as it is: a C0 control (`U+0000`–`U+001F`,
    /// tab, line feed and `ESC` among them), `DEL`, a C1 control (`U+0080`–`U+009F`), or a bidi
    /// embedding, override or isolate (`U+202A`–`U+202E`, `U+2066`–`U+2069`).
    ///
    /// - Parameter scalar: A Unicode scalar.
    /// - Returns: `true` when presenters draw it as `�`.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every grapheme cluster that holds an unsafe scalar (``isUnsafe(_:)``)
    /// replaced by one `�`.
    ///
    /// - Parameters:
    ///   - text: Text from elsewhere.
    ///   - keepingLineBreaks: Whether a line feed (or a `CR LF` pair, which becomes a line
    ///     feed) is kept, for text laid out in lines, such as a message of several lines
    ///     written on its own; `false` by default, for text drawn inside one row.
    /// - Returns: `text` itself when it holds nothing unsafe.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        for character in text {
            if keepingLineBreaks, character == "\n" || character == "\r\n" {
                result.append("\n")
            } else {
                result.append(character.unicodeScalars.contains(where: isUnsafe) ? "\u{FFFD}" : character)
            }
        }
        return result
    }
}
