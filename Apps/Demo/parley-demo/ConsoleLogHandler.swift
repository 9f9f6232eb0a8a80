import Feedback
import FeedbackConsole
import Foundation
import Logging

/// Log lines on standard error, printed above the console's live area so that they never
/// cut through a mask or a progress bar: `notice: [Retry] Refreshed the credential`.
struct ConsoleLogHandler: LogHandler {
    /// The console whose live area is cleared while a line is written.
    let console: ConsolePresenter
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "\(event.level): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        // A message of several lines (the headers of a request) keeps them, indented; other
        // control characters and escape sequences, which may come from a server, cannot move
        // the cursor or change the terminal.
        let safe = TerminalText.escaped(line, keepingLineBreaks: true)
            .split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
        console.withLiveAreaCleared {
            StandardStreams.writeError(safe + "\n")
        }
    }
}
