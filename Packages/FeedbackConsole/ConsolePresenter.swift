import Dispatch
public import Feedback
import Transport

/// Draws feedback on a console: spinners and HUD boxes over masked regions, progress bars,
/// alert boxes, in one live area under the program's normal output, on standard error.
///
/// Install it once at start-up and finish it before the program exits:
///
/// ```swift
/// let console = ConsolePresenter()
/// try FeedbackSystem.bootstrap(console, catalog: .preferred(environment: ProcessInfo.processInfo.environment))
/// defer { console.finish() }
/// ```
///
/// **In a terminal** every running request has its region in the live area. The area is redrawn
/// at most 20 times a second, on a queue of the presenter's own (never on the thread that
/// reports progress), and only the rows that changed are rewritten; rows are cut to the
/// terminal's width (read at every redraw, so a resize is followed, and a terminal that reflowed
/// the rows onto more when it got narrower keeps no piece of them) with an ellipsis, measuring
/// wide characters as two columns. The cursor is hidden while something is drawn and shown again
/// when the area empties, at ``finish()``, at exit, and on `SIGINT` or `SIGTERM` (the area is
/// cleared first, then the signal does what it would have done). Messages, log lines and finished
/// transfers are printed above the area, for good; so is anything printed inside
/// ``withLiveAreaCleared(_:)``. The area is cleared at once when its last request ends, so a
/// program can print its result to standard output right after.
///
/// **Elsewhere** (a pipe or a file, `TERM=dumb`, or `CI` set; see ``ConsoleCapabilities``) it
/// writes no escape sequence and no carriage return: a status line per request still running, at
/// most every 2 seconds, and one summary line when each request ends, besides the messages.
/// `NO_COLOR` removes colour and nothing else; `FORCE_COLOR` adds colour to the plain lines.
///
/// Text from elsewhere (a server's message, a city's name) is written with its control
/// characters, escape sequences' `ESC` and bidi overrides replaced by `�`
/// (``/Feedback/TerminalText``), so it cannot move the cursor or change the terminal, in the
/// live area and on plain lines alike.
public final class ConsolePresenter: FeedbackPresenter, Sendable {
    /// How a presenter behaves.
    public struct Options: Sendable {
        /// The shortest time between two redraws of the live area: 50 ms (20 a second) by default.
        public var refreshInterval: Duration = .milliseconds(50)
        /// The shortest time between two status lines of one request where nothing is redrawn:
        /// 2 seconds by default.
        public var plainStatusInterval: Duration = .seconds(2)
        /// The sentences to use; ``/Feedback/FeedbackSystem/catalog`` (when the presenter is made) by default.
        public var catalog: MessageCatalog?
        /// Whether the presenter redraws on a timer of its own (the default); `false` leaves it to
        /// calls of `refresh()`, for tests.
        package var drawsOnTimer = true
        /// The clock: time since an arbitrary start. The monotonic clock by default; tests
        /// inject their own.
        package var clock: (@Sendable () -> Duration)?
        /// The capabilities, when the caller decides them rather than ``ConsoleCapabilities/detect(isTerminal:environment:)``.
        public var capabilities: ConsoleCapabilities?

        /// The defaults.
        public init() {}
    }

    private struct State {
        var scene = FeedbackScene()
        /// The rows of the live area as written, with their codes; the cursor sits at the start
        /// of the row below them.
        var drawn: [String] = []
        /// The drawn rows as a person reads them, without codes: what a terminal that reflows
        /// its lines rewraps when it gets narrower.
        var drawnText: [String] = []
        /// The terminal's width when the rows were drawn.
        var drawnColumns = 0
        var cursorHidden = false
        var restorationKey: Int?
        var timerScheduled = false
        /// When each request's last plain status line was written.
        var lastStatus: [ActivityID: Duration] = [:]
        var redraws = 0
        /// Lines to print for good at the next redraw (log lines, finished transfers).
        var queued: [StyledText] = []
        /// Bytes computed under this lock and not yet written, in order.
        var pending = ""
        /// How many callers hold the live area cleared (``withLiveAreaCleared(_:)``, a reload
        /// prompt): while any does, the scene is kept and nothing is drawn.
        var suspensions = 0
        /// Set when the process is ending (exit, a signal): nothing is drawn any more.
        var terminated = false
    }

    /// What this presenter may do on its output.
    public let capabilities: ConsoleCapabilities
    private let output: ConsoleOutput
    private let options: Options
    private let clock: @Sendable () -> Duration
    private let queue = DispatchQueue(label: "parley.feedback.console")
    /// The scene and what is on screen: held only to compute, never while writing, so the
    /// thread that reports progress never waits for a slow terminal.
    private let state = PThreadMutex(State())
    /// Held while writing, so that what was computed in order is written in order.
    private let writer = PThreadMutex(())

    /// Creates a presenter.
    ///
    /// - Parameters:
    ///   - output: Where to write; ``ConsoleOutput/standardError`` by default.
    ///   - options: Rates, catalog, capabilities; the defaults by default.
    public init(output: ConsoleOutput = .standardError, options: Options = Options()) {
        self.output = output
        self.options = options
        self.capabilities =
            options.capabilities
            ?? ConsoleCapabilities.detect(isTerminal: output.isTerminal, environment: output.environment)
        if let clock = options.clock {
            self.clock = clock
        } else {
            let start = ContinuousClock.now
            self.clock = { ContinuousClock.now - start }
        }
    }

    deinit {
        finish()
    }

    /// The drawings, in the chosen catalog or the one installed now (so that a catalog
    /// bootstrapped after the presenter was made is the one used).
    private var layout: ConsoleLayout {
        ConsoleLayout(catalog: options.catalog ?? FeedbackSystem.catalog)
    }

    /// How many times the live area has been written: for tests.
    package var redrawCount: Int { state.withLock { $0.redraws } }

    /// What is live now: for tests.
    package var scene: FeedbackScene { state.withLock { $0.scene } }

    // MARK: - Presenting

    /// Takes an event; prints messages at once, and leaves the live area to the next redraw.
    ///
    /// Only a message (which must be on screen before the caller goes on) and the emptying of
    /// the live area (so that a result printed next lands on a clean row) are written before
    /// this returns; log lines and finished transfers wait for the next redraw, so the area is
    /// redrawn at most every ``Options/refreshInterval`` however many arrive. Progress only
    /// updates the scene.
    public func present(_ event: FeedbackEvent) {
        state.withLock { state in
            let now = clock()
            let outputs = state.scene.apply(event, at: now)
            // Progress, the one event that comes often (on the engine's thread), ends here.
            guard !outputs.isEmpty || (state.scene.isEmpty && !state.drawn.isEmpty) else {
                if !state.scene.isEmpty { scheduleTimer(&state) }
                return
            }
            let layout = self.layout
            if capabilities.redraws {
                state.queued += outputs.flatMap { layout.permanentLines(for: $0, width: width) }
                let hasMessage = outputs.contains { if case .message = $0 { true } else { false } }
                let emptied = state.scene.isEmpty && !state.drawn.isEmpty
                let idle = state.scene.isEmpty && state.drawn.isEmpty && !state.queued.isEmpty
                if hasMessage || emptied || idle { redraw(&state, now: now, layout: layout) }
            } else {
                let lines = outputs.flatMap { layout.plainLines(for: $0) }
                if !lines.isEmpty { state.pending += lines.map { encode($0) + "\n" }.joined() }
                for case .maskSummary(let placement, _, _) in outputs { state.lastStatus[placement.activity] = nil }
                for case .transferSummary(let transfer, _, _) in outputs { state.lastStatus[transfer.activity] = nil }
            }
            if !state.scene.isEmpty || !state.queued.isEmpty { scheduleTimer(&state) }
        }
        flush()
    }

    /// Redraws the live area now (or, where nothing is redrawn, writes the status lines that are
    /// due): what the timer does. Tests that set `Options.drawsOnTimer` to `false` call it.
    package func refresh() {
        state.withLock { state in
            let now = clock()
            if capabilities.redraws {
                redraw(&state, now: now, layout: layout)
            } else {
                writeDueStatusLines(&state, now: now)
            }
        }
        flush()
    }

    /// Clears the live area, prints what was waiting (log lines held back by a mask included)
    /// and shows the cursor, leaving the screen as if nothing had been drawn; call it before the
    /// program exits. Requests still running are drawn again at the next redraw.
    public func finish() {
        state.withLock { state in finalize(&state) }
        flush()
    }

    /// Runs `body` with the live area cleared and the cursor shown, then draws the area again:
    /// for printing to the same terminal (a result on standard output, a prompt) while requests
    /// run.
    ///
    /// The presenter's lock is not held while `body` runs: feedback presented meanwhile (from
    /// `body` or another thread) updates the scene and is drawn afterwards, and Ctrl-C still
    /// restores the terminal.
    public func withLiveAreaCleared<Result>(_ body: () throws -> Result) rethrows -> Result {
        suspendDrawing()
        defer { resumeDrawing() }
        return try body()
    }

    /// Clears the live area, shows the cursor and draws nothing until as many
    /// ``resumeDrawing()`` calls: the two halves of ``withLiveAreaCleared(_:)``, for a caller
    /// that suspends while the area is cleared (a reload prompt waiting for a key).
    func suspendDrawing() {
        state.withLock { state in
            clearLiveArea(&state)
            releaseTerminal(&state)
            state.suspensions += 1
        }
        flush()
    }

    /// Ends one ``suspendDrawing()``; the last one draws the area again.
    func resumeDrawing() {
        state.withLock { state in
            state.suspensions = max(0, state.suspensions - 1)
            guard state.suspensions == 0 else { return }
            if capabilities.redraws { redraw(&state, now: clock(), layout: layout) }
            if !state.scene.isEmpty { scheduleTimer(&state) }
        }
        flush()
    }

    /// Ends all drawing for good: the process is exiting or was interrupted.
    private func terminate() {
        state.withLock { state in
            finalize(&state)
            state.terminated = true
        }
        flush()
    }

    /// Writes what was computed, in order, outside the state lock.
    private func flush() {
        writer.withLock { _ in
            let text = state.withLock { state in
                defer { state.pending = "" }
                return state.pending
            }
            if !text.isEmpty { output.write(text) }
        }
    }

    private func finalize(_ state: inout State) {
        let held = state.scene.drainHeldLines()
        if capabilities.redraws {
            clearLiveArea(&state)
            let lines = state.queued + held.flatMap { layout.permanentLines(for: $0, width: width) }
            state.queued = []
            if !lines.isEmpty { state.pending += lines.map { encode($0) + "\n" }.joined() }
            releaseTerminal(&state)
        } else {
            let lines = held.flatMap { layout.plainLines(for: $0) }
            if !lines.isEmpty { state.pending += lines.map { encode($0) + "\n" }.joined() }
        }
    }

    // MARK: - The live area

    /// The columns rows are cut to: one less than the terminal's, so that no row fills the last
    /// column (where terminals differ on wrapping).
    private var width: Int { Self.width(forColumns: terminalColumns) }

    /// The terminal's width now.
    private var terminalColumns: Int { max(1, output.columns() ?? 80) }

    private static func width(forColumns columns: Int) -> Int { max(8, columns - 1) }

    /// Prints the queued lines above the live area and redraws it, writing only rows that
    /// changed; nothing at all when nothing changed.
    private func redraw(_ state: inout State, now: Duration, layout: ConsoleLayout) {
        guard state.suspensions == 0, !state.terminated else { return }
        let columns = terminalColumns
        let width = Self.width(forColumns: columns)
        var rows = layout.liveLines(for: state.scene, width: width, tick: Int(now / .milliseconds(100)))
        let limit = max(1, (output.rows() ?? 25) - 1)
        if rows.count > limit {
            let hidden = rows.count - limit + 1
            let more = StyledText(layout.phrase(.moreRows, ["count": "\(hidden)"]), style: .dim)
            rows = Array(rows.prefix(limit - 1)) + [more]
        }
        let encoded = rows.map(encode)
        if !state.queued.isEmpty {
            clearLiveArea(&state, columns: columns)
            state.pending += state.queued.map { encode($0) + "\n" }.joined()
            state.queued = []
        }
        if encoded.isEmpty {
            clearLiveArea(&state, columns: columns)
            releaseTerminal(&state)
            return
        }
        // Nothing moved: no write at all (a spinner frame that did not change, a bar at rest).
        if encoded == state.drawn && columns == state.drawnColumns { return }
        if columns != state.drawnColumns { clearLiveArea(&state, columns: columns) }
        var text = ""
        if !state.cursorHidden {
            text += "\u{1B}[?25l"
            state.cursorHidden = true
            state.restorationKey = TerminalRestoration.register { [weak self] in self?.terminate() }
        }
        // The first row starts at column 0 even if something left the cursor mid-row.
        text += state.drawn.isEmpty ? "\r" : "\u{1B}[\(state.drawn.count)A"
        for (index, row) in encoded.enumerated() {
            if index < state.drawn.count, state.drawn[index] == row {
                text += "\n"
            } else {
                text += row + "\u{1B}[K\n"
            }
        }
        if encoded.count < state.drawn.count { text += "\u{1B}[J" }
        state.pending += text
        state.drawn = encoded
        state.drawnText = rows.map { Self.sanitized($0.plainText) }
        state.drawnColumns = columns
        state.redraws += 1
    }

    /// Erases the live area; the cursor ends where its first row was.
    ///
    /// When the terminal is narrower than when the rows were drawn, a terminal that reflows
    /// its lines (tmux, VTE, kitty, iTerm2, Windows Terminal) has wrapped each row onto as many
    /// rows as it now takes, so the cursor moves up over all of those, and nothing of the old
    /// rows is left behind. A terminal that cuts its lines instead (xterm) loses as many rows
    /// of the output above the area from the screen.
    ///
    /// - Parameter columns: The terminal's width now; the width the rows were drawn at by
    ///   default.
    private func clearLiveArea(_ state: inout State, columns: Int? = nil) {
        guard !state.drawn.isEmpty else { return }
        let columns = columns ?? terminalColumns
        let occupied =
            columns >= state.drawnColumns
            ? state.drawn.count
            : state.drawnText.reduce(0) { $0 + ConsoleLayout.rowsOccupied(by: $1, columns: columns) }
        state.pending += "\u{1B}[\(occupied)A\r\u{1B}[J"
        state.drawn = []
        state.drawnText = []
        state.redraws += 1
    }

    /// Shows the cursor again and stops watching for signals, when the cursor was hidden.
    private func releaseTerminal(_ state: inout State) {
        guard state.cursorHidden else { return }
        state.pending += "\u{1B}[?25h"
        state.cursorHidden = false
        if let key = state.restorationKey { TerminalRestoration.unregister(key) }
        state.restorationKey = nil
    }

    // MARK: - Plain output

    private func writeDueStatusLines(_ state: inout State, now: Duration) {
        var lines: [StyledText] = []
        let interval = options.plainStatusInterval
        for region in state.scene.regions {
            for entry in region.masks {
                let last = state.lastStatus[entry.placement.activity] ?? entry.began
                guard now - last >= interval else { continue }
                lines.append(layout.plainStatus(of: entry, elapsed: now - entry.began))
                state.lastStatus[entry.placement.activity] = now
            }
        }
        for transfer in state.scene.transfers {
            let last = state.lastStatus[transfer.activity] ?? transfer.began
            guard now - last >= interval else { continue }
            lines.append(layout.plainStatus(of: transfer))
            state.lastStatus[transfer.activity] = now
        }
        if !lines.isEmpty { state.pending += lines.map { encode($0) + "\n" }.joined() }
    }

    // MARK: - Timer

    private func scheduleTimer(_ state: inout State) {
        guard options.drawsOnTimer, !state.timerScheduled else { return }
        state.timerScheduled = true
        let interval =
            capabilities.redraws ? options.refreshInterval : Swift.min(options.plainStatusInterval / 4, .seconds(1))
        let nanoseconds = Int(interval / .nanoseconds(1))
        queue.asyncAfter(deadline: .now() + .nanoseconds(Swift.max(1_000_000, nanoseconds))) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        state.withLock { state in
            state.timerScheduled = false
            guard !state.terminated else { return }
            let now = clock()
            if capabilities.redraws {
                redraw(&state, now: now, layout: layout)
            } else {
                writeDueStatusLines(&state, now: now)
            }
            if !state.scene.isEmpty || !state.queued.isEmpty { scheduleTimer(&state) }
        }
        flush()
    }

    // MARK: - Encoding

    /// The row as written: its text with control characters replaced, and colour codes when the
    /// output takes them.
    func encode(_ text: StyledText) -> String {
        var result = ""
        for run in text.runs {
            let safe = Self.sanitized(run.text)
            guard capabilities.usesColor, let code = Self.colourCode(run.style) else {
                result += safe
                continue
            }
            result += "\u{1B}[\(code)m" + safe + "\u{1B}[0m"
        }
        return result
    }

    /// The SGR parameters of a style, or `nil` for plain text.
    static func colourCode(_ style: StyledText.Style) -> String? {
        switch style {
        case .plain: nil
        case .dim: "2"
        case .bold: "1"
        case .accent: "36"
        case .success: "32"
        case .warning: "33"
        case .failure: "31"
        }
    }

    /// `text` with every grapheme cluster that holds a control character or a bidi override
    /// replaced by one `�` (``/Feedback/TerminalText/escaped(_:keepingLineBreaks:)``), as
    /// ``/Feedback/TextWidth`` measures it.
    ///
    /// `package` so that the fuzz target in `Tests/Fuzz` can check it on arbitrary text.
    package static func sanitized(_ text: String) -> String { TerminalText.escaped(text) }
}
