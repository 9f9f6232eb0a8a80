import Feedback
import FeedbackConsole

/// Server text on its way to the terminal: `ConsolePresenter.sanitized`, `TextWidth`,
/// `StyledText` truncation and `ConsoleLayout.wrap`. The first byte is the width (0 to 99
/// columns), the rest the text, decoded as UTF-8 as a server's message is.
///
/// Checks: the sanitized text holds no control scalar and measures as many columns as the
/// text; cut to a width it is at most that wide, is the text itself when it fits and a prefix
/// of it and `…` when not; padded it is exactly that wide; wrapped, every line fits (a single
/// character wider than the width excepted) and no character but the spaces between words is
/// lost.
let consoleTextTarget = FuzzTarget(
    name: "console-text",
    maximumLength: 512,
    summary: "no control scalar after sanitizing; widths kept; truncate/pad/wrap fit the width"
) { buffer in
    var input = FuzzInput(buffer)
    let width = Int(input.byte() % 100)
    let text = input.text
    let safe = ConsolePresenter.sanitized(text)
    check(!safe.unicodeScalars.contains(where: TerminalText.isUnsafe), "a control scalar in \(safe.debugDescription)")
    let columns = TextWidth.columns(of: safe)
    check(
        columns == TextWidth.columns(of: text),
        "\(text.debugDescription) is \(TextWidth.columns(of: text)) columns, sanitized \(columns)")

    let cut = TextWidth.truncate(safe, toColumns: width)
    check(TextWidth.columns(of: cut) <= width, "\(cut.debugDescription) is wider than \(width)")
    if width == 0 {
        check(cut.isEmpty, "\(cut.debugDescription) is not empty at a width of 0")
    } else if columns <= width {
        check(cut == safe, "\(safe.debugDescription) fits in \(width) but was cut")
    } else {
        check(
            cut.hasSuffix("…") && safe.unicodeScalars.starts(with: cut.unicodeScalars.dropLast()),
            "\(cut.debugDescription) is not a prefix of \(safe.debugDescription) and an ellipsis")
    }
    let padded = TextWidth.pad(safe, toColumns: width)
    check(TextWidth.columns(of: padded) == width, "\(padded.debugDescription) is not \(width) columns")
    let styled = StyledText(safe).truncated(toColumns: width)
    check(styled.columns <= width, "styled \(styled.plainText.debugDescription) is wider than \(width)")

    let lines = ConsoleLayout(catalog: .english).wrap(safe, width: width)
    for line in lines {
        check(
            TextWidth.columns(of: line) <= max(1, width) || line.count == 1,
            "the wrapped line \(line.debugDescription) is wider than \(width)")
    }
    func letters(_ text: String) -> [Unicode.Scalar] { text.unicodeScalars.filter { $0 != " " && $0 != "\n" } }
    check(letters(lines.joined()) == letters(safe), "wrapping \(safe.debugDescription) lost text: \(lines)")
}
