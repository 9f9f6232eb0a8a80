import Transport

/// A terminal screen in memory: it takes the text a console presenter writes, escape
/// sequences and all, and keeps the grid of cells a person would see.
///
/// Tests of a presenter assert on frames, not bytes: two outputs that draw the same screen
/// are equally right, and a frame that leaves a stray spinner behind is wrong however its
/// bytes look.
///
/// ```swift
/// let terminal = VirtualTerminal(columns: 80, rows: 24)
/// terminal.feed("⠋ Loading…\r\u{1B}[2K✓ Toronto, Canada\n")
/// #expect(terminal.lines.first == "✓ Toronto, Canada")
/// #expect(terminal.unsupportedSequences.isEmpty)
/// ```
///
/// It behaves like xterm, for the part of it presenters use:
///
/// - Text is placed one grapheme cluster per cell, as wide as
///   ``/Feedback/TextWidth/columns(of:)-(Character)`` says: a wide character (`多`, `🌧`)
///   takes two cells, the second a continuation; a zero-width cluster (a lone combining
///   mark) joins the cell before it.
/// - Writing the last column leaves the cursor there with a wrap pending: the next printable
///   character goes to the start of the next line (auto-wrap, `ESC[?7h`, on by default), or
///   overwrites the last column when auto-wrap is off (`ESC[?7l`).
/// - `\r` returns to the first column, `\n` goes down a line (and, as a terminal's line
///   discipline does by default, to the first column: see `translatesNewlines`), `\u{8}` goes
///   back one column, `\t` to the next multiple of eight. At the bottom a line feed scrolls the
///   screen, and the top line goes to ``scrollback``.
/// - CSI sequences: cursor up, down, forward, back (`A` `B` `C` `D`), next and previous line
///   (`E` `F`), column (`G`), position (`H` `f`), erase in line (`K`, 0 1 2) and in display
///   (`J`, 0 1 2, and 3 for the scrollback), SGR (`m`: bold 1, dim 2, normal 22, colours
///   30–37 and 90–97, default 39, reset 0), cursor visibility (`?25l` `?25h`) and auto-wrap
///   (`?7l` `?7h`).
///
/// Any other escape sequence is recorded in ``unsupportedSequences`` and otherwise ignored,
/// so a test can insist a presenter uses only these. Nothing crashes it: counts are clamped
/// to the screen, malformed sequences are recorded and dropped, and a sequence cut between two
/// ``feed(_:)`` calls continues in the second.
///
/// The terminal is safe to use from any thread; its state sits behind a lock, and each query
/// returns a snapshot.
public final class VirtualTerminal: Sendable {
    /// A place on the screen, counted from 0.
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        /// The row, from the top.
        public var row: Int
        /// The column, from the left.
        public var column: Int

        /// Creates a position.
        ///
        /// - Parameters:
        ///   - row: The row, from 0 at the top.
        ///   - column: The column, from 0 at the left.
        public init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }

        /// `row:column`.
        public var description: String { "\(row):\(column)" }
    }

    /// The rendition a cell was written with (SGR).
    public struct Attributes: Sendable, Hashable {
        /// Bold (SGR 1).
        public var bold: Bool
        /// Dim (SGR 2).
        public var dim: Bool
        /// The foreground colour's SGR code (30–37, 90–97); `nil` for the default colour.
        public var foreground: Int?

        /// The default rendition: not bold, not dim, the default colour.
        public static let plain = Attributes(bold: false, dim: false, foreground: nil)

        /// Creates a rendition.
        ///
        /// - Parameters:
        ///   - bold: Bold; `false` by default.
        ///   - dim: Dim; `false` by default.
        ///   - foreground: The colour's SGR code; the default colour by default.
        public init(bold: Bool = false, dim: Bool = false, foreground: Int? = nil) {
            self.bold = bold
            self.dim = dim
            self.foreground = foreground
        }

        /// Whether anything differs from the default rendition.
        public var isStyled: Bool { bold || dim || foreground != nil }
    }

    /// One cell of the grid.
    public struct Cell: Sendable, Hashable {
        /// The grapheme cluster shown, a space for a blank cell, and empty for the second cell
        /// of a wide character.
        public var text: String
        /// Whether this is the second cell of a wide character.
        public var isContinuation: Bool
        /// The rendition it was written with.
        public var attributes: Attributes

        /// A blank cell.
        public static let blank = Cell(text: " ", isContinuation: false, attributes: .plain)

        /// Creates a cell.
        ///
        /// - Parameters:
        ///   - text: The grapheme cluster shown.
        ///   - isContinuation: Whether this is the second cell of a wide character.
        ///   - attributes: The rendition.
        public init(text: String, isContinuation: Bool = false, attributes: Attributes = .plain) {
            self.text = text
            self.isContinuation = isContinuation
            self.attributes = attributes
        }
    }

    /// The largest screen, in either direction: larger sizes are clamped to it.
    public static let maximumSize = 1000

    private let state: PThreadMutex<Screen>

    /// Creates a blank screen with the cursor at the top left, visible, and auto-wrap on.
    ///
    /// - Parameters:
    ///   - columns: The width, 80 by default; clamped to `1...maximumSize`.
    ///   - rows: The height, 24 by default; clamped to `1...maximumSize`.
    ///   - translatesNewlines: Whether `\n` also returns to the first column, as a terminal
    ///     does when its line discipline maps newlines to CR LF on output (`onlcr`, on by
    ///     default on every tty); `true` by default. Pass `false` to see a raw line feed.
    ///   - scrollbackLimit: The most lines ``scrollback`` keeps, the oldest dropped first;
    ///     10 000 by default.
    public init(columns: Int = 80, rows: Int = 24, translatesNewlines: Bool = true, scrollbackLimit: Int = 10_000) {
        state = PThreadMutex(
            Screen(
                columns: Self.clamp(columns), rows: Self.clamp(rows), translatesNewlines: translatesNewlines,
                scrollbackLimit: max(0, scrollbackLimit)))
    }

    // MARK: - Input

    /// Interprets `text` as output written to the terminal.
    ///
    /// - Parameter text: Printable text, control characters and escape sequences, in any
    ///   mixture; a sequence cut at the end continues with the next call.
    public func feed(_ text: String) {
        state.withLock { $0.feed(text) }
    }

    /// Interprets `bytes` as UTF-8 output written to the terminal; invalid bytes show as `�`.
    ///
    /// - Parameter bytes: The bytes, as a presenter wrote them.
    public func feed(bytes: some Sequence<UInt8>) {
        feed(String(decoding: Array(bytes), as: UTF8.self))
    }

    /// Changes the size of the screen, as a terminal window does when a person resizes it.
    ///
    /// By default lines are not reflowed, as in xterm: each row is cut or padded to the new
    /// width (a wide character cut in half is blanked). When the screen gets shorter, rows
    /// above the cursor go to ``scrollback`` so that the cursor stays on screen, and rows
    /// below it are dropped.
    ///
    /// With `reflowing`, a new width reflows the lines as tmux, VTE or kitty do: rows that
    /// auto-wrap joined are one line again, every line is wrapped at the new width (a wide
    /// character that does not fit at the end of a row goes whole to the next), and the cursor
    /// stays on the character it was on. A line of 60 columns takes two rows at 40 columns,
    /// and one again at 80. When the lines need more rows than the screen has, blank rows below
    /// the cursor go first, then rows at the top go to ``scrollback``.
    ///
    /// - Parameters:
    ///   - columns: The new width; clamped to `1...maximumSize`.
    ///   - rows: The new height; clamped to `1...maximumSize`.
    ///   - reflowing: Whether lines are wrapped again at the new width; `false` by default.
    public func resize(columns: Int, rows: Int, reflowing: Bool = false) {
        state.withLock {
            $0.resize(columns: Self.clamp(columns), rows: Self.clamp(rows), reflowing: reflowing)
        }
    }

    // MARK: - What a person sees

    /// The width of the screen, in columns.
    public var columns: Int { state.withLock { $0.columns } }

    /// The height of the screen, in rows.
    public var rows: Int { state.withLock { $0.rows } }

    /// Every row of the screen, top to bottom, without trailing spaces.
    public var lines: [String] { state.withLock { $0.lines } }

    /// The text of one row, without trailing spaces; empty for a row off the screen.
    ///
    /// - Parameter row: The row, from 0 at the top.
    public func text(row: Int) -> String {
        state.withLock { screen in
            screen.grid.indices.contains(row) ? Screen.text(of: screen.grid[row]) : ""
        }
    }

    /// The screen as text: the rows joined with newlines, without the empty rows at the
    /// bottom (rows in between stay, so that lines keep their places).
    public var screen: String {
        Self.joinedDroppingTrailingEmptyLines(lines)
    }

    /// Everything a person can scroll back to: the lines of ``scrollback``, then the rows of
    /// the screen, joined with newlines, without the empty rows at the bottom.
    public var visibleText: String {
        let (scrollback, lines) = state.withLock { ($0.scrollback, $0.lines) }
        return Self.joinedDroppingTrailingEmptyLines(scrollback + lines)
    }

    /// The lines that scrolled off the top, oldest first, without trailing spaces.
    public var scrollback: [String] { state.withLock { $0.scrollback } }

    /// One cell of the screen, or `nil` for a place off the screen.
    ///
    /// - Parameters:
    ///   - row: The row, from 0 at the top.
    ///   - column: The column, from 0 at the left.
    public func cell(row: Int, column: Int) -> Cell? {
        state.withLock { screen in
            guard screen.grid.indices.contains(row), screen.grid[row].indices.contains(column) else { return nil }
            return screen.grid[row][column]
        }
    }

    /// Where the next character goes; after the last column was written, that column, with a
    /// wrap pending.
    public var cursor: Position {
        state.withLock { Position(row: $0.row, column: $0.column) }
    }

    /// Whether the cursor is shown: `true` until `ESC[?25l`, again after `ESC[?25h`.
    public var isCursorVisible: Bool { state.withLock { $0.isCursorVisible } }

    /// Whether auto-wrap is on: `true` until `ESC[?7l`, again after `ESC[?7h`.
    public var isAutoWrapOn: Bool { state.withLock { $0.autoWrap } }

    /// Whether any escape sequence, supported or not, was written.
    public var sawEscapeSequences: Bool { state.withLock { $0.sawEscapeSequences } }

    /// Whether any SGR sequence turned on a rendition or a colour (anything but a reset: 0,
    /// 22, 39): what a presenter must never write under `NO_COLOR` or to a pipe.
    public var sawColor: Bool { state.withLock { $0.sawColor } }

    /// Every escape sequence the terminal does not interpret, in order, with `ESC` spelled
    /// out (`ESC[5S`) and each cut to 64 characters; also malformed sequences.
    public var unsupportedSequences: [String] { state.withLock { $0.unsupported } }

    // MARK: - Helpers

    private static func clamp(_ size: Int) -> Int {
        min(max(1, size), maximumSize)
    }

    private static func joinedDroppingTrailingEmptyLines(_ lines: [String]) -> String {
        var lines = lines
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
