import Feedback
import FeedbackConsole
import FeedbackTesting
import Foundation
import Glibc
import Retry
import TestSupport
import Testing
import Transport

/// The reload prompt with its keys written into a pipe and its output recorded: which keys
/// answer what, what the question says, when it does not ask, and that it asks one question at
/// a time, leaving a presenter's live area alone while it asks.
///
/// The pipe is not a terminal, so the prompt is told it is interactive; the terminal mode
/// itself is exercised by parley-fetch's tests in a real pseudo-terminal.
@Suite struct ConsoleReloadPromptTests {
    @Test(arguments: [
        ("r", true), ("R", true), ("y", true), ("Y", true), ("\n", true), ("\r", true),
        ("a", false), ("A", false), ("n", false), ("N", false), ("q", false), ("\u{03}", false), ("\u{04}", false),
    ])
    func aKeyAnswers(key: String, retries: Bool) async throws {
        let keys = try KeyPipe()
        keys.write(key)
        let (answer, output) = await ask(keys)
        #expect(answer == retries)
        #expect(output.hasSuffix(retries ? "[a]bort retry\n" : "[a]bort abort\n"), "\(output.debugDescription)")
    }

    @Test func theEndOfTheInputAborts() async throws {
        let keys = try KeyPipe()
        keys.closeWriteEnd()
        let (answer, output) = await ask(keys)
        #expect(!answer)
        #expect(output.hasSuffix("abort\n"))
    }

    @Test func otherKeysAreIgnoredUntilOneAnswers() async throws {
        let keys = try KeyPipe()
        keys.write("x7 ?y")
        let (answer, output) = await ask(keys)
        #expect(answer)
        #expect(output.hasSuffix("retry\n"))
    }

    @Test func aKeyPressedLaterAnswers() async throws {
        let keys = try KeyPipe()
        let prompt = makePrompt(keys)
        async let answer = prompt.prompt.shouldReload(after: .sample())
        try await waitUntil { prompt.output.contains("Retry?") }
        keys.write("y")
        #expect(await answer)
    }

    @Test func escapeAloneAbortsButAnArrowKeyIsIgnored() async throws {
        let keys = try KeyPipe()
        let prompt = makePrompt(keys)
        async let first = prompt.prompt.shouldReload(after: .sample())
        try await waitUntil { prompt.output.contains("Retry?") }
        keys.write("\u{1B}[A")  // the up arrow
        try await Task.sleep(for: .milliseconds(150))
        keys.write("r")
        #expect(await first, "the arrow did not abort; r then retried")

        async let second = prompt.prompt.shouldReload(after: .sample())
        try await waitUntil { prompt.output.components(separatedBy: "Retry?").count == 3 }
        keys.write("\u{1B}")
        #expect(await second == false, "Escape on its own aborts")
    }

    @Test func withoutATerminalItAnswersNoAtOnceAndPrintsNothing() async throws {
        let keys = try KeyPipe()
        keys.write("r")
        let (answer, output) = await ask(keys, isInteractive: false)
        #expect(!answer)
        #expect(output.isEmpty)
        // The default looks at the descriptors themselves: a pipe is not a terminal.
        let detected = makePrompt(keys, isInteractive: nil)
        #expect(await detected.prompt.shouldReload(after: .sample()) == false)
        #expect(detected.output.isEmpty)
    }

    @Test func withoutInputAllowedItAnswersNoAtOnceAndPrintsNothing() async throws {
        let keys = try KeyPipe()
        keys.write("r")
        let (answer, output) = await ask(keys, allowsInput: false)
        #expect(!answer)
        #expect(output.isEmpty)
    }

    @Test func theQuestionNamesTheFailureTheAttemptsAndThatRetryingAGETIsSafe() async throws {
        let keys = try KeyPipe()
        keys.write("a")
        let (_, output) = await ask(keys)
        #expect(
            output == """
                The connection to the server was lost. Try again.
                  The connection to 127.0.0.1:9 was reset.
                  Attempts made: 4.
                  Sending this GET again is safe: it cannot be applied twice.
                Retry? [r]etry / [a]bort abort

                """)
    }

    @Test func aPOSTThatMayHaveBeenAppliedSaysSo() async throws {
        let keys = try KeyPipe()
        keys.write("a")
        let (_, output) = await ask(keys, context: .sample(method: "POST", applied: true, attempts: 1))
        #expect(
            output.contains("The server may already have applied this POST; sending it again could apply it twice."))
        #expect(output.contains("Attempts made: 1."))
        #expect(!output.contains("is safe"))
    }

    @Test func theTextsAreTheCatalogs() async throws {
        let keys = try KeyPipe()
        keys.write("r")
        let (answer, output) = await ask(keys, catalog: .simplifiedChinese)
        #expect(answer)
        #expect(output.hasPrefix("与服务器的连接已断开。请重试。\n"))
        #expect(output.contains("已尝试 4 次。"))
        #expect(output.contains("再次发送这个 GET 请求是安全的"))
        #expect(output.hasSuffix("重试吗？[r] 重试 / [a] 放弃 重试\n"))

        let overridden = try KeyPipe()
        overridden.write("a")
        let catalog = MessageCatalog.english.merging([.reloadQuestion: "Download again? (r/a) "])
        let (_, text) = await ask(overridden, catalog: catalog)
        #expect(text.hasSuffix("Download again? (r/a) abort\n"))
    }

    @Test func theQuestionShowsNoCredentialOfTheFailedRequest() async throws {
        let keys = try KeyPipe()
        keys.write("a")
        var context = ReloadContext.sample()
        context.url = "http://127.0.0.1:9/file.bin?token=s3cr3t-c0de"
        context.error = TransportError(
            .connectionReset, message: "The download of \(context.url) was reset.", url: context.url)
        let (_, output) = await ask(keys, context: context)
        #expect(!output.contains("s3cr3t-c0de"), "\(output)")
        #expect(output.contains("token=<redacted>"), "\(output)")
    }

    @Test func controlCharactersInTheDetailAreNotWritten() async throws {
        let keys = try KeyPipe()
        keys.write("a")
        var context = ReloadContext.sample()
        context.error.message = "Reset by \u{1B}]0;owned\u{07} the server."
        let (_, output) = await ask(keys, context: context)
        #expect(!output.contains("\u{1B}"))
        #expect(output.contains("Reset by �"))
    }

    @Test func aCancelledTaskAbortsThePrompt() async throws {
        let keys = try KeyPipe()
        let prompt = makePrompt(keys)
        let task = Task { await prompt.prompt.shouldReload(after: .sample()) }
        try await waitUntil { prompt.output.contains("Retry?") }
        task.cancel()
        #expect(await task.value == false)
        #expect(prompt.output.hasSuffix("abort\n"))
        // The read has ended: a key written now is left for whoever reads next.
        keys.write("r")
        let next = makePrompt(keys)
        #expect(await next.prompt.shouldReload(after: .sample()))
    }

    @Test func concurrentRequestsAreAskedOneAtATime() async throws {
        let keys = try KeyPipe()
        let prompt = makePrompt(keys)
        async let first = prompt.prompt.shouldReload(after: .sample(attempts: 1))
        async let second = prompt.prompt.shouldReload(after: .sample(attempts: 2))
        let questions = { prompt.output.components(separatedBy: "Retry?").count - 1 }
        try await waitUntil { questions() == 1 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(questions() == 1, "the second question waits for the first answer")
        keys.write("r")
        try await waitUntil { questions() == 2 }
        keys.write("a")
        let answers = await [first, second]
        #expect(answers.sorted { !$0 && $1 } == [false, true])
        // Each question is whole, and answered, before the next begins.
        let blocks = prompt.output.components(separatedBy: "Retry? [r]etry / [a]bort ").dropFirst()
        #expect(blocks.first?.hasPrefix("retry\n") == true, "\(prompt.output)")
        #expect(blocks.last == "abort\n", "\(prompt.output)")
    }

    @Test func aWaitingQuestionThatIsCancelledLeavesTheQueue() async throws {
        let keys = try KeyPipe()
        let prompt = makePrompt(keys)
        async let first = prompt.prompt.shouldReload(after: .sample())
        try await waitUntil { prompt.output.contains("Retry?") }
        let waiting = Task { await prompt.prompt.shouldReload(after: .sample()) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == false)
        keys.write("r")
        #expect(await first)
        #expect(prompt.output.components(separatedBy: "Retry?").count == 2, "the cancelled one never asked")
    }

    @Test func thePresentersLiveAreaIsClearedWhileItAsksAndDrawnAfter() async throws {
        let harness = ConsoleHarness()
        let bar = TestBar(progressLabel: "big.iso", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        harness.refresh()
        #expect(harness.screenRows.last?.hasPrefix("big.iso") == true)

        let keys = try KeyPipe()
        let output = ConsoleOutput(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]) { text in
            harness.terminal.feed(text)
        }
        let prompt = ConsoleReloadPrompt(
            presenter: harness.presenter, catalog: .english, input: keys.readEnd, output: output, isInteractive: true)
        async let answer = prompt.shouldReload(after: .sample())
        try await waitUntil { harness.terminal.visibleText.contains("Retry?") }
        harness.refresh()
        #expect(!harness.screenRows.contains { $0.hasPrefix("big.iso") }, "no bar over the question")
        #expect(harness.terminal.isCursorVisible)
        keys.write("r")
        #expect(await answer)
        #expect(harness.screenRows.suffix(2).first == "Retry? [r]etry / [a]bort retry")
        #expect(harness.screenRows.last?.hasPrefix("big.iso") == true, "the bar is back under the transcript")
        bar.progressEnded(activity, outcome: .succeeded)
    }
}

// MARK: - Support

/// A pipe the prompt reads keys from; both ends are closed when it goes.
private final class KeyPipe: Sendable {
    let readEnd: Int32
    /// The write end; -1 once closed.
    private let writeEnd: PThreadMutex<Int32>

    init() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        readEnd = ends[0]
        writeEnd = PThreadMutex(ends[1])
    }

    deinit {
        close(readEnd)
        closeWriteEnd()
    }

    /// Writes `keys` as bytes.
    func write(_ keys: String) {
        let bytes = Array(keys.utf8)
        writeEnd.withLock { end in
            _ = bytes.withUnsafeBytes { Glibc.write(end, $0.baseAddress, $0.count) }
        }
    }

    /// Ends the input.
    func closeWriteEnd() {
        writeEnd.withLock { end in
            guard end >= 0 else { return }
            close(end)
            end = -1
        }
    }
}

/// A prompt on `keys` and what it wrote.
private struct RecordedPrompt {
    let prompt: ConsoleReloadPrompt
    private let written: LockedRecorder<String>

    init(prompt: ConsoleReloadPrompt, written: LockedRecorder<String>) {
        self.prompt = prompt
        self.written = written
    }

    var output: String { written.all.joined() }
}

private func makePrompt(
    _ keys: KeyPipe, catalog: MessageCatalog = .english, allowsInput: Bool = true, isInteractive: Bool? = true
) -> RecordedPrompt {
    let written = LockedRecorder<String>()
    let output = ConsoleOutput(isTerminal: false, environment: [:], write: written.handler)
    let prompt = ConsoleReloadPrompt(
        catalog: catalog, allowsInput: allowsInput, input: keys.readEnd, output: output, isInteractive: isInteractive)
    return RecordedPrompt(prompt: prompt, written: written)
}

/// Asks once with the keys already in `keys`; the answer and everything written.
private func ask(
    _ keys: KeyPipe, catalog: MessageCatalog = .english, allowsInput: Bool = true, isInteractive: Bool = true,
    context: ReloadContext = .sample()
) async -> (Bool, String) {
    let recorded = makePrompt(keys, catalog: catalog, allowsInput: allowsInput, isInteractive: isInteractive)
    let answer = await recorded.prompt.shouldReload(after: context)
    return (answer, recorded.output)
}

extension ReloadContext {
    /// A download's connection reset after `attempts` attempts.
    fileprivate static func sample(method: String = "GET", applied: Bool = false, attempts: Int = 4) -> ReloadContext {
        ReloadContext(
            method: httpMethod(method), url: "http://127.0.0.1:9/file.bin",
            error: TransportError(
                .connectionReset, message: "The connection to 127.0.0.1:9 was reset.",
                url: "http://127.0.0.1:9/file.bin"),
            attempts: attempts, mayHaveBeenApplied: applied,
            reason: "Gave up after \(attempts) attempts, the retry policy's limit.")
    }
}

/// The method named `name`, made through `LosslessStringConvertible`, which this target sees
/// without importing swift-http-types (not one of its dependencies).
private func httpMethod<Method: LosslessStringConvertible>(_ name: String) -> Method {
    guard let method = Method(name) else { preconditionFailure("\(name) is not a method") }
    return method
}
