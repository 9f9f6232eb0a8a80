import Feedback
import FeedbackConsole
import Foundation

/// Where a command's result goes: standard output, as text or as one JSON document.
///
/// Feedback (masks, progress, warnings, prompts) goes to standard error through the console,
/// so standard output holds the result alone and can be piped. Writes go through
/// `StandardStreams`: a reader that goes away (`| head -1`) ends parley-demo as it ends `cat`.
struct ResultOutput: Sendable {
    /// Whether the result is printed as JSON.
    let json: Bool

    /// Prints the result: `text` as it is, or `value` as pretty-printed JSON with sorted keys.
    ///
    /// - Parameters:
    ///   - text: The human-readable result, without a final newline.
    ///   - value: The same result for machines.
    func emit(text: @autoclosure () -> String, json value: some Encodable) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            var data = try encoder.encode(value)
            data.append(0x0A)
            try StandardStreams.writeOutput(data)
        } else {
            try write(text())
        }
    }

    /// Prints a line of text, whatever the format: for the guided tour. Text results quote the
    /// server (a city's name, release notes), so control characters and escape sequences are
    /// made harmless by `TerminalText`; JSON escapes them itself.
    func write(_ text: String) throws {
        try StandardStreams.writeOutput(TerminalText.escaped(text, keepingLineBreaks: true) + "\n")
    }

    /// `text` padded with spaces to `columns` terminal columns (wide characters count two).
    static func pad(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - TextWidth.columns(of: text)))
    }
}
