public import Feedback
import Foundation
public import Retry
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks the person at the terminal whether to send a request again once its automatic retries
/// are over: MBNetwork's "network error screen, tap to re-request", as a question on standard
/// error.
///
/// Install it for the process, or return it from a ``/Retry/Reloadable``'s
/// ``/Retry/Reloadable/reloadPrompt``; downloads take it in their options:
///
/// ```swift
/// let console = ConsolePresenter()
/// try ReloadSystem.bootstrap(ConsoleReloadPrompt(presenter: console, allowsInput: !noInput))
/// ```
///
/// The question names the failure (the catalog's sentence for its category, with the
/// transport's message under it), the attempts made, and whether the server may already have
/// applied the request:
///
/// ```text
/// The connection to the server was lost. Try again.
///   The server at https://example.com/big.iso ended the body after 1048576 of 8388608 bytes.
///   Attempts made: 4.
///   Sending this GET again is safe: it cannot be applied twice.
/// Retry? [r]etry / [a]bort retry
/// ```
///
/// - **When it asks.** Only when standard input and standard error are both terminals and
///   input is allowed (`allowsInput` is `false` for a `--no-input` switch); otherwise it
///   answers "no" at once and prints nothing, so a script or a pipe never waits.
/// - **Keys.** One key, without Enter and without echo: `r`, `y` or Enter retry; `a`, `n`, `q`,
///   Escape, Ctrl-C and Ctrl-D abort, and so does the end of the input; other keys (an arrow
///   among them) are ignored. The answer is echoed as a word (`retry`, `abort`), so the
///   transcript reads as a dialogue. Keys typed before the question appeared are discarded.
/// - **The terminal.** The input's mode is put back after the answer, when the task is
///   cancelled (which answers "no"), and if the process exits or receives `SIGINT` or `SIGTERM`
///   while the question is open. With a ``ConsolePresenter`` the live area is cleared (and the
///   cursor shown) while the question is open, and drawn again after it.
/// - **One at a time.** Requests that fail together are asked in turn; a request cancelled
///   while it waits for its turn is answered "no".
///
/// The texts are the catalog's (``/Feedback/MessageKey/reloadQuestion`` and the other
/// `reload` keys), so a catalog can reword or translate them.
public final class ConsoleReloadPrompt: ReloadPrompt {
    private let presenter: ConsolePresenter?
    private let catalog: MessageCatalog?
    private let allowsInput: Bool
    private let input: Int32
    private let output: ConsoleOutput
    private let interactive: Bool
    private let turn = PromptTurn()

    /// A prompt on standard input and standard error.
    ///
    /// - Parameters:
    ///   - presenter: The presenter drawing on the same terminal, whose live area is cleared
    ///     while the question is open; `nil` for none.
    ///   - catalog: The texts; ``/Feedback/FeedbackSystem/catalog`` (when asking) by default.
    ///   - allowsInput: `false` never asks (a `--no-input` switch): every failure stands.
    public convenience init(
        presenter: ConsolePresenter? = nil, catalog: MessageCatalog? = nil, allowsInput: Bool = true
    ) {
        self.init(
            presenter: presenter, catalog: catalog, allowsInput: allowsInput, input: STDIN_FILENO,
            output: .standardError)
    }

    /// A prompt reading keys from `input` and writing to `output`: for another terminal (an
    /// opened `/dev/tty`) and for tests.
    ///
    /// - Parameters:
    ///   - presenter: The presenter whose live area is cleared while the question is open.
    ///   - catalog: The texts; ``/Feedback/FeedbackSystem/catalog`` (when asking) by default.
    ///   - allowsInput: `false` never asks.
    ///   - input: The descriptor keys are read from; its terminal mode, when it is a terminal,
    ///     is changed while the question is open. The prompt does not close it.
    ///   - output: Where the question goes.
    ///   - isInteractive: Whether to ask at all; by default, whether `input` and `output` are
    ///     both terminals.
    public init(
        presenter: ConsolePresenter? = nil, catalog: MessageCatalog? = nil, allowsInput: Bool = true, input: Int32,
        output: ConsoleOutput, isInteractive: Bool? = nil
    ) {
        self.presenter = presenter
        self.catalog = catalog
        self.allowsInput = allowsInput
        self.input = input
        self.output = output
        self.interactive = isInteractive ?? (isatty(input) == 1 && output.isTerminal)
    }

    /// Asks, and waits for the answer; `false` at once where it may not ask.
    ///
    /// - Parameter failure: What failed.
    /// - Returns: `true` when the person chose to retry.
    public func shouldReload(after failure: ReloadContext) async -> Bool {
        guard allowsInput, interactive, !Task.isCancelled else { return false }
        guard await turn.acquire() else { return false }
        defer { turn.release() }
        guard !Task.isCancelled, let reader = KeyReader(descriptor: input) else { return false }
        defer { reader.closePipe() }

        presenter?.suspendDrawing()
        defer { presenter?.resumeDrawing() }
        let catalog = self.catalog ?? FeedbackSystem.catalog
        // The mode is set before the question is shown: only keys pressed after it answer.
        let mode = KeyboardMode(descriptor: input) { reader.wake() }
        output.write(question(for: failure, catalog: catalog))
        let ending = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<KeyReader.Ending, Never>) in
                // The read blocks its thread, so it gets one of its own, not one of the pool's.
                let thread = Thread { continuation.resume(returning: reader.readKey(Self.answer(for:))) }
                thread.name = "parley-reload-prompt"
                thread.start()
            }
        } onCancel: {
            reader.wake()
        }
        mode.restore()
        let reload = ending == .key(true) && !Task.isCancelled
        output.write(catalog.text(reload ? .reloadRetry : .reloadAbort) + "\n")
        return reload
    }

    /// What a key answers: `true` to retry, `false` to abort, `nil` for a key that does not
    /// answer.
    static func answer(for byte: UInt8) -> Bool? {
        switch byte {
        case UInt8(ascii: "r"), UInt8(ascii: "R"), UInt8(ascii: "y"), UInt8(ascii: "Y"), 0x0A, 0x0D: true
        case UInt8(ascii: "a"), UInt8(ascii: "A"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "q"),
            UInt8(ascii: "Q"), 0x1B, 0x03, 0x04:
            false
        default: nil
        }
    }

    /// The lines before the answer: the failure, its detail, the attempts, whether it is safe,
    /// and the question, which the answer follows on its line.
    private func question(for failure: ReloadContext, catalog: MessageCatalog) -> String {
        let warning = catalog.warning(for: failure.error)
        let headline = warning?.text ?? catalog.text(.network)
        let detail = warning?.detail ?? failure.error.message
        let method = "\(failure.method)"
        let safety =
            failure.mayHaveBeenApplied
            ? catalog.text(.reloadMayHaveBeenApplied, ["method": method])
            : catalog.text(.reloadSafe, ["method": method])
        let colour = ConsoleCapabilities.detect(isTerminal: output.isTerminal, environment: output.environment)
            .usesColor
        func styled(_ text: String, _ style: StyledText.Style) -> String {
            let safe = ConsolePresenter.sanitized(text)
            guard colour, let code = ConsolePresenter.colourCode(style) else { return safe }
            return "\u{1B}[\(code)m" + safe + "\u{1B}[0m"
        }
        var lines = [styled(headline, .warning)]
        if !detail.isEmpty { lines.append("  " + styled(detail, .plain)) }
        lines.append("  " + styled(catalog.text(.reloadAttempts, ["attempts": "\(failure.attempts)"]), .plain))
        lines.append("  " + styled(safety, failure.mayHaveBeenApplied ? .warning : .plain))
        return lines.joined(separator: "\n") + "\n" + styled(catalog.text(.reloadQuestion), .bold)
    }
}

/// One question at a time: a first-come, first-served turn that a cancelled waiter leaves.
private final class PromptTurn: Sendable {
    private struct State {
        var busy = false
        var nextID = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    }

    private let state = PThreadMutex(State())

    /// Waits for the turn: `true` once it is this caller's (who must ``release()`` it), `false`
    /// when the task was cancelled first.
    func acquire() async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted: Bool? = state.withLock { state in
                    // Checked under the lock the cancellation handler takes: a cancellation
                    // either is seen here or finds the waiter below.
                    if Task.isCancelled { return false }
                    if !state.busy {
                        state.busy = true
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Hands the turn to the next waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
