import Feedback
import FeedbackConsole
import FeedbackTesting
import Mapping
import Testing
import Transport

/// What a server controls, drawn by the console: credentials never show, and no control
/// character or escape sequence of its text reaches the terminal, in the live area or on
/// plain lines.
@Suite struct ConsoleUntrustedTextTests {
    static let secret = "s3cr3t-b41e"
    /// A message with every way a server's text could drive a terminal: an OSC title, a
    /// screen clear, a cursor move, a carriage return, a C1 CSI and a bidi override.
    static let hostile = "Bad city \u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[1A\rover\u{9B}31mred \u{202E}txt.exe"

    @Test func aWarningShowsNoCredentialFromTheErrorOrTheServer() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:])
        let warner = TestWarner(presenter: harness.presenter)
        warner.warn(
            TransportError(
                .connectionRefused, message: "Could not reach https://user:pa55@h/p?token=\(Self.secret).",
                url: "https://user:pa55@h/p?token=\(Self.secret)"))
        warner.warn(BusinessError(code: 401, serverMessage: "Rejected Authorization: Bearer \(Self.secret)"))
        harness.presenter.finish()
        #expect(!harness.bytes.contains(Self.secret), "\(harness.bytes)")
        #expect(!harness.bytes.contains("pa55"), "\(harness.bytes)")
        #expect(harness.bytes.contains("<redacted>"), "\(harness.bytes)")
    }

    @Test func aRetryLineShowsNoCredentialFromTheFailure() {
        let catalog = MessageCatalog.english.merging([.retrying: "Retrying in {delay} after {reason}"])
        let harness = ConsoleHarness(catalog: catalog)
        let bar = TestBar(progressLabel: "file.bin", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        bar.progressRetrying(
            activity,
            notice: RetryEvent(
                attempt: 2, reason: "The request to http://h/f?api_key=\(Self.secret) failed.", delay: .seconds(1)))
        harness.refresh()
        #expect(harness.terminal.visibleText.contains("api_key=<redacted>"), "\(harness.terminal.visibleText)")
        bar.progressEnded(activity, outcome: .succeeded)
        harness.presenter.finish()
        #expect(!harness.bytes.contains(Self.secret))
    }

    @Test func plainLinesCarryNoControlOrEscapeFromAServersText() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:])
        TestWarner(presenter: harness.presenter).warn(BusinessError(code: 500, serverMessage: Self.hostile))
        harness.presenter.finish()
        let written = harness.bytes
        #expect(written.contains("Bad city"))
        for unsafe in ["\u{1B}", "\u{9B}", "\u{07}", "\r", "\u{202E}"] {
            #expect(!written.contains(unsafe), "\(written.debugDescription)")
        }
    }

    @Test func theLiveAreaDrawsAServersEscapesAsPlainCharacters() {
        let harness = ConsoleHarness()
        TestWarner(presenter: harness.presenter).warn(BusinessError(code: 500, serverMessage: Self.hostile))
        harness.presenter.finish()
        let written = harness.bytes
        // The presenter writes escape sequences of its own; none of the server's gets through.
        for unsafe in ["\u{1B}]", "\u{1B}[2J", "\u{9B}", "\u{07}", "\u{202E}"] {
            #expect(!written.contains(unsafe), "\(written.debugDescription)")
        }
        #expect(harness.terminal.visibleText.contains("Bad city �]0;pwned��[2J�[1A�over�31mred �txt.exe"))
        #expect(harness.terminal.unsupportedSequences.isEmpty, "\(harness.terminal.unsupportedSequences)")
    }

    @Test(arguments: [
        ("\u{1B}]0;pwned\u{07}", "�]0;pwned�"),
        ("a\u{9B}2Jb", "a�2Jb"),
        ("left\u{202E}right\u{2066}", "left�right�"),
        ("line\r\nnext\nlast", "line�next�last"),
        ("多伦多 ☔", "多伦多 ☔"),
    ])
    func terminalTextReplacesEachUnsafeClusterWithOneReplacementCharacter(text: String, expected: String) {
        #expect(TerminalText.escaped(text) == expected)
        #expect(TextWidth.columns(of: text) == TextWidth.columns(of: expected))
    }

    @Test func terminalTextKeepsLineBreaksWhenAskedAndNothingElse() {
        #expect(
            TerminalText.escaped("one\r\ntwo\nthree\rfour\u{1B}[1A", keepingLineBreaks: true)
                == "one\ntwo\nthree�four�[1A")
    }
}
