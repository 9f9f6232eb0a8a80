import FeedbackTesting
import TestSupport
import Testing

@Suite struct VirtualTerminalTests {
    typealias Position = VirtualTerminal.Position

    /// What must hold whatever was fed: the grid keeps its size and the cursor stays on it.
    static func expectConsistent(_ terminal: VirtualTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(terminal.lines.count == terminal.rows, sourceLocation: sourceLocation)
        #expect((0..<terminal.rows).contains(terminal.cursor.row), sourceLocation: sourceLocation)
        #expect((0..<terminal.columns).contains(terminal.cursor.column), sourceLocation: sourceLocation)
        for row in 0..<terminal.rows {
            let cells = (0..<terminal.columns).compactMap { terminal.cell(row: row, column: $0) }
            #expect(cells.count == terminal.columns, sourceLocation: sourceLocation)
            // Every continuation follows the first cell of its wide character.
            for (index, cell) in cells.enumerated() where cell.isContinuation {
                #expect(index > 0 && !cells[index - 1].isContinuation, sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: - Text

    @Test func printsTextAndAdvancesTheCursor() {
        let terminal = VirtualTerminal(columns: 80, rows: 24)
        terminal.feed("Hello, Toronto")
        #expect(terminal.lines.first == "Hello, Toronto")
        #expect(terminal.cursor == Position(row: 0, column: 14))
        #expect(terminal.screen == "Hello, Toronto")
        #expect(!terminal.sawEscapeSequences)
    }

    @Test func returnsToTheFirstColumnAndOverwrites() {
        let terminal = VirtualTerminal()
        terminal.feed("Loading…\rDone")
        #expect(terminal.text(row: 0) == "Doneing…")
        #expect(terminal.cursor == Position(row: 0, column: 4))
    }

    @Test func startsANewLineAsATerminalsLineDisciplineDoes() {
        let terminal = VirtualTerminal()
        terminal.feed("Toronto\nParis\r\nLondon")
        #expect(terminal.lines.prefix(3) == ["Toronto", "Paris", "London"])
    }

    @Test func feedsALineWithoutReturningWhenNewlinesAreNotTranslated() {
        let terminal = VirtualTerminal(columns: 20, rows: 4, translatesNewlines: false)
        terminal.feed("ab\ncd")
        #expect(terminal.lines.prefix(2) == ["ab", "  cd"])
    }

    @Test func goesBackOneColumnForABackspace() {
        let terminal = VirtualTerminal()
        terminal.feed("abc\u{8}\u{8}X\u{8}\u{8}\u{8}\u{8}Y")
        #expect(terminal.text(row: 0) == "YXc")
        #expect(terminal.cursor == Position(row: 0, column: 1))
    }

    @Test func movesToTheNextTabStop() {
        let terminal = VirtualTerminal()
        terminal.feed("ab\tc")
        #expect(terminal.text(row: 0) == "ab      c")
    }

    // MARK: - Wide characters

    @Test func placesAWideCharacterInTwoCells() throws {
        let terminal = VirtualTerminal()
        terminal.feed("多伦多 ☔")
        #expect(terminal.text(row: 0) == "多伦多 ☔")
        #expect(terminal.cursor == Position(row: 0, column: 9))
        let first = try #require(terminal.cell(row: 0, column: 0))
        let second = try #require(terminal.cell(row: 0, column: 1))
        #expect(first.text == "多")
        #expect(!first.isContinuation)
        #expect(second.isContinuation)
        #expect(terminal.cell(row: 0, column: 7)?.text == "☔")
        #expect(terminal.cell(row: 0, column: 8)?.isContinuation == true)
    }

    @Test(arguments: ["👍🏽", "🇨🇦", "ｆ", "🌧\u{FE0F}"])
    func placesEveryWideClusterInTwoCells(cluster: String) {
        let terminal = VirtualTerminal()
        terminal.feed(cluster + "x")
        #expect(terminal.cell(row: 0, column: 0)?.text == cluster)
        #expect(terminal.cell(row: 0, column: 2)?.text == "x")
    }

    @Test func blanksAWideCharacterWhoseHalfIsOverwritten() {
        let terminal = VirtualTerminal()
        // Writing over the second half blanks the first
        terminal.feed("多伦\u{1B}[2Gx")
        #expect(terminal.text(row: 0) == " x伦")
        // Writing over the first half blanks the second
        terminal.feed("\u{1B}[3Gy")
        #expect(terminal.text(row: 0) == " xy")
        #expect(terminal.cell(row: 0, column: 3)?.isContinuation == false)
    }

    @Test func joinsACombiningMarkToTheCharacterBeforeIt() {
        let terminal = VirtualTerminal()
        terminal.feed("Montre")
        terminal.feed("\u{301}al")
        #expect(terminal.text(row: 0) == "Montre\u{301}al")
        #expect(terminal.cursor == Position(row: 0, column: 8))
    }

    // MARK: - Wrapping and scrolling

    @Test func waitsAtTheLastColumnThenWrapsLikeXterm() {
        let terminal = VirtualTerminal(columns: 10, rows: 3)
        terminal.feed("0123456789")
        // The cursor stays on the last column with a wrap pending
        #expect(terminal.cursor == Position(row: 0, column: 9))
        #expect(terminal.text(row: 1).isEmpty)
        terminal.feed("ab")
        #expect(terminal.lines == ["0123456789", "ab", ""])
    }

    @Test func cancelsAPendingWrapOnACarriageReturn() {
        let terminal = VirtualTerminal(columns: 10, rows: 3)
        terminal.feed("0123456789\rX")
        #expect(terminal.lines == ["X123456789", "", ""])
    }

    @Test func movesAWideCharacterThatDoesNotFitToTheNextLine() {
        let terminal = VirtualTerminal(columns: 10, rows: 3)
        terminal.feed("012345678多")
        #expect(terminal.lines.prefix(2) == ["012345678", "多"])
        #expect(terminal.cursor == Position(row: 1, column: 2))
    }

    @Test func overwritesTheLastColumnWhenAutoWrapIsOff() {
        let terminal = VirtualTerminal(columns: 10, rows: 3)
        terminal.feed("\u{1B}[?7l0123456789abc")
        #expect(!terminal.isAutoWrapOn)
        #expect(terminal.lines == ["012345678c", "", ""])
        terminal.feed("\u{1B}[?7h\r0123456789ab")
        #expect(terminal.isAutoWrapOn)
        #expect(terminal.lines == ["0123456789", "ab", ""])
        #expect(terminal.unsupportedSequences.isEmpty)
    }

    @Test func scrollsTheTopLineIntoTheScrollback() {
        let terminal = VirtualTerminal(columns: 20, rows: 3)
        terminal.feed("one\ntwo\nthree\nfour\nfive")
        #expect(terminal.scrollback == ["one", "two"])
        #expect(terminal.lines == ["three", "four", "five"])
        #expect(terminal.visibleText == "one\ntwo\nthree\nfour\nfive")
        #expect(terminal.cursor == Position(row: 2, column: 4))
    }

    @Test func keepsOnlyTheNewestScrollbackLines() {
        let terminal = VirtualTerminal(columns: 10, rows: 2, scrollbackLimit: 3)
        for line in 1...10 { terminal.feed("\(line)\n") }
        #expect(terminal.scrollback == ["7", "8", "9"])
    }

    @Test func wrapsLongTextIntoTheScrollback() {
        let terminal = VirtualTerminal(columns: 4, rows: 2)
        terminal.feed("abcdefghij")
        #expect(terminal.scrollback == ["abcd"])
        #expect(terminal.lines == ["efgh", "ij"])
    }

    // MARK: - Cursor movement

    @Test(arguments: [
        ("\u{1B}[A", Position(row: 4, column: 10)),
        ("\u{1B}[3A", Position(row: 2, column: 10)),
        ("\u{1B}[0A", Position(row: 4, column: 10)),
        ("\u{1B}[2B", Position(row: 7, column: 10)),
        ("\u{1B}[5C", Position(row: 5, column: 15)),
        ("\u{1B}[4D", Position(row: 5, column: 6)),
        ("\u{1B}[2E", Position(row: 7, column: 0)),
        ("\u{1B}[2F", Position(row: 3, column: 0)),
        ("\u{1B}[1G", Position(row: 5, column: 0)),
        ("\u{1B}[G", Position(row: 5, column: 0)),
        ("\u{1B}[40G", Position(row: 5, column: 39)),
        ("\u{1B}[H", Position(row: 0, column: 0)),
        ("\u{1B}[3;7H", Position(row: 2, column: 6)),
        ("\u{1B}[;7f", Position(row: 0, column: 6)),
        ("\u{1B}[99999A", Position(row: 0, column: 10)),
        ("\u{1B}[99999999999999999999B", Position(row: 23, column: 10)),
        ("\u{1B}[12345678901234567890C", Position(row: 5, column: 79)),
        ("\u{1B}[999D", Position(row: 5, column: 0)),
        ("\u{1B}[999;999H", Position(row: 23, column: 79)),
    ])
    func movesTheCursorWithinTheScreen(sequence: String, position: Position) {
        let terminal = VirtualTerminal(columns: 80, rows: 24)
        terminal.feed("\u{1B}[6;11H")
        #expect(terminal.cursor == Position(row: 5, column: 10))
        terminal.feed(sequence)
        #expect(terminal.cursor == position)
        #expect(terminal.unsupportedSequences.isEmpty)
    }

    @Test func continuesASequenceCutBetweenTwoWrites() {
        let terminal = VirtualTerminal()
        terminal.feed("Loading…\r\u{1B}[")
        terminal.feed("2")
        terminal.feed("KDone")
        #expect(terminal.text(row: 0) == "Done")
        #expect(terminal.unsupportedSequences.isEmpty)
    }

    // MARK: - Erasing

    @Test(arguments: [
        ("\u{1B}[K", "abcd"),
        ("\u{1B}[0K", "abcd"),
        ("\u{1B}[1K", "     fghij"),
        ("\u{1B}[2K", ""),
    ])
    func erasesInLine(sequence: String, line: String) {
        let terminal = VirtualTerminal(columns: 20, rows: 3)
        terminal.feed("abcdefghij\n0123\u{1B}[1;5H")
        terminal.feed(sequence)
        #expect(terminal.text(row: 0) == line)
        #expect(terminal.text(row: 1) == "0123")
        #expect(terminal.cursor == Position(row: 0, column: 4))
    }

    @Test(arguments: [
        ("\u{1B}[J", ["one", "tw", ""]),
        ("\u{1B}[1J", ["", "   2", "three"]),
        ("\u{1B}[2J", ["", "", ""]),
    ])
    func erasesInDisplay(sequence: String, lines: [String]) {
        let terminal = VirtualTerminal(columns: 20, rows: 3)
        terminal.feed("one\ntwo2\nthree\u{1B}[2;3H")
        terminal.feed(sequence)
        #expect(terminal.lines == lines)
    }

    @Test func erasesTheScrollbackWithJ3() {
        let terminal = VirtualTerminal(columns: 10, rows: 2)
        terminal.feed("1\n2\n3\n4")
        #expect(!terminal.scrollback.isEmpty)
        terminal.feed("\u{1B}[3J")
        #expect(terminal.scrollback.isEmpty)
        #expect(terminal.lines == ["3", "4"])
    }

    @Test func erasesBothHalvesOfAWideCharacter() {
        let terminal = VirtualTerminal()
        terminal.feed("ab多cd\u{1B}[4G\u{1B}[K")
        #expect(terminal.text(row: 0) == "ab")
        terminal.feed("\r多伦x\u{1B}[3G\u{1B}[1K")
        #expect(terminal.text(row: 0) == "    x")
    }

    // MARK: - Rendition

    @Test func recordsTheRenditionOfEachCell() throws {
        let terminal = VirtualTerminal()
        terminal.feed("\u{1B}[1;31mWarning\u{1B}[0m: \u{1B}[2mUnknown city\u{1B}[22m \u{1B}[92mok\u{1B}[39m.")
        #expect(terminal.text(row: 0) == "Warning: Unknown city ok.")
        #expect(terminal.sawColor)
        #expect(terminal.cell(row: 0, column: 0)?.attributes == .init(bold: true, foreground: 31))
        #expect(terminal.cell(row: 0, column: 7)?.attributes == .plain)
        #expect(terminal.cell(row: 0, column: 9)?.attributes == .init(dim: true))
        #expect(terminal.cell(row: 0, column: 22)?.attributes == .init(foreground: 92))
        let last = try #require(terminal.cell(row: 0, column: 24))
        #expect(!last.attributes.isStyled)
        #expect(terminal.unsupportedSequences.isEmpty)
    }

    @Test(arguments: ["\u{1B}[0m", "\u{1B}[m", "\u{1B}[22m", "\u{1B}[39m", "\u{1B}[0;22;39m"])
    func doesNotCountResetsAsColour(sequence: String) {
        let terminal = VirtualTerminal()
        terminal.feed(sequence + "plain")
        #expect(terminal.sawEscapeSequences)
        #expect(!terminal.sawColor)
        #expect(terminal.cell(row: 0, column: 0)?.attributes.isStyled == false)
    }

    @Test(arguments: ["\u{1B}[1m", "\u{1B}[2m", "\u{1B}[33m", "\u{1B}[97m", "\u{1B}[4m", "\u{1B}[38;5;208m"])
    func countsAnyOtherRenditionAsColour(sequence: String) {
        let terminal = VirtualTerminal()
        terminal.feed(sequence + "styled")
        #expect(terminal.sawColor)
    }

    // MARK: - Modes

    @Test func hidesAndShowsTheCursor() {
        let terminal = VirtualTerminal()
        #expect(terminal.isCursorVisible)
        terminal.feed("\u{1B}[?25l⠋ Loading…")
        #expect(!terminal.isCursorVisible)
        terminal.feed("\r\u{1B}[2K\u{1B}[?25h")
        #expect(terminal.isCursorVisible)
        #expect(terminal.unsupportedSequences.isEmpty)
    }

    // MARK: - Unsupported input

    @Test(arguments: [
        ("\u{1B}[5S", "ESC[5S"),
        ("\u{1B}[?1049h", "ESC[?1049h"),
        ("\u{1B}[4m", "ESC[4m"),
        ("\u{1B}[5K", "ESC[5K"),
        ("\u{1B}[1:2m", "ESC[1:2m"),
        ("\u{1B}[2 q", "ESC[2 q"),
        ("\u{1B}7", "ESC7"),
        ("\u{1B}(B", "ESC(B"),
        ("\u{1B}]0;Weather\u{7}", "ESC]0;Weather"),
        ("\u{1B}]0;Weather\u{1B}\\", "ESC]0;Weather"),
        ("\u{1B}[12é", "ESC[12"),
    ])
    func recordsSequencesItDoesNotInterpret(sequence: String, recorded: String) {
        let terminal = VirtualTerminal()
        terminal.feed("a" + sequence + "b")
        #expect(terminal.unsupportedSequences == [recorded])
        #expect(terminal.sawEscapeSequences)
        #expect(terminal.text(row: 0).hasPrefix("a"))
        #expect(terminal.text(row: 0).hasSuffix("b"))
    }

    @Test func dropsAnOverlongSequenceWhole() {
        let terminal = VirtualTerminal()
        terminal.feed("\u{1B}[" + String(repeating: "1;", count: 500) + "mtext")
        #expect(terminal.unsupportedSequences.count == 1)
        #expect(terminal.text(row: 0) == "text")
        #expect(!terminal.sawColor)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func survivesRandomBytes(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let bytes = (0..<10_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let terminal = VirtualTerminal(columns: 80, rows: 24)
        terminal.feed(bytes: bytes)
        Self.expectConsistent(terminal)
    }

    @Test(arguments: [UInt64(4), 5, 6])
    func survivesRandomEscapeSequences(seed: UInt64) {
        // Pieces chosen to reach every state of the parser, in random order.
        let pieces = [
            "\u{1B}", "[", "]", "?", ";", "0", "7", "25", "99999", "l", "h", "m", "K", "J", "A", "B", "C", "D", "G",
            "H", "\u{7}", "\\", "\r", "\n", "\r\n", "\u{8}", "\t", "多", "🇨🇦", "\u{301}", "a", " ", "\u{9B}",
        ]
        var generator = SeededGenerator(seed: seed)
        let terminal = VirtualTerminal(columns: 13, rows: 5)
        for _ in 0..<10_000 {
            terminal.feed(pieces.randomElement(using: &generator) ?? "")
        }
        Self.expectConsistent(terminal)
    }

    // MARK: - Size

    @Test func cutsAndPadsRowsWhenResized() {
        let terminal = VirtualTerminal(columns: 10, rows: 4)
        terminal.feed("abcd多\n1\n2\n3")
        terminal.resize(columns: 5, rows: 2)
        #expect(terminal.columns == 5)
        #expect(terminal.rows == 2)
        // The cut wide character is blanked; the rows above the cursor went to the scrollback
        #expect(terminal.scrollback == ["abcd", "1"])
        #expect(terminal.lines == ["2", "3"])
        #expect(terminal.cursor == Position(row: 1, column: 1))

        terminal.resize(columns: 8, rows: 3)
        #expect(terminal.lines == ["2", "3", ""])
        terminal.feed("\u{1B}[1;8Hz")
        #expect(terminal.text(row: 0) == "2      z")
        Self.expectConsistent(terminal)
    }

    @Test func reflowsALongLineOntoMoreRowsAndBackWhenAskedTo() {
        let terminal = VirtualTerminal(columns: 80, rows: 6)
        let long = String(repeating: "a", count: 30) + String(repeating: "b", count: 30)
        terminal.feed("top\n" + long + "\nbelow\n")
        #expect(terminal.cursor == Position(row: 3, column: 0))

        terminal.resize(columns: 25, rows: 6, reflowing: true)
        #expect(
            terminal.lines == [
                "top", String(repeating: "a", count: 25),
                String(repeating: "a", count: 5) + String(repeating: "b", count: 20),
                String(repeating: "b", count: 10), "below", "",
            ])
        // The cursor stays at the start of the row under "below".
        #expect(terminal.cursor == Position(row: 5, column: 0))

        // Wider again: the three rows are one line.
        terminal.resize(columns: 80, rows: 6, reflowing: true)
        #expect(terminal.lines == ["top", long, "below", "", "", ""])
        #expect(terminal.cursor == Position(row: 3, column: 0))
        Self.expectConsistent(terminal)
    }

    @Test func joinsRowsThatAutoWrapSplitWhenReflowedWider() {
        let terminal = VirtualTerminal(columns: 10, rows: 4)
        terminal.feed("0123456789abcde\nx")
        #expect(terminal.lines == ["0123456789", "abcde", "x", ""])
        terminal.resize(columns: 20, rows: 4, reflowing: true)
        #expect(terminal.lines == ["0123456789abcde", "x", "", ""])
        #expect(terminal.cursor == Position(row: 1, column: 1))
        // A line that ended with a line feed is not joined to the next.
        terminal.resize(columns: 40, rows: 4, reflowing: true)
        #expect(terminal.lines == ["0123456789abcde", "x", "", ""])
        Self.expectConsistent(terminal)
    }

    @Test func movesAWideCharacterThatWouldStraddleTheNewWidthWholeToTheNextRow() {
        let terminal = VirtualTerminal(columns: 20, rows: 4)
        terminal.feed("ab多伦多\n")
        terminal.resize(columns: 5, rows: 4, reflowing: true)
        #expect(terminal.lines == ["ab多", "伦多", "", ""])
        #expect(terminal.cell(row: 0, column: 4)?.text == " ")
        Self.expectConsistent(terminal)
    }

    @Test func scrollsTheTopRowsAwayWhenTheReflowedLinesNeedMoreRowsThanTheScreen() {
        let terminal = VirtualTerminal(columns: 20, rows: 3)
        terminal.feed("first\n" + String(repeating: "x", count: 19) + "\n")
        terminal.resize(columns: 10, rows: 3, reflowing: true)
        // The blank row under the cursor is kept (the cursor is on it); "first" scrolled away.
        #expect(terminal.scrollback == ["first"])
        #expect(terminal.lines == [String(repeating: "x", count: 10), String(repeating: "x", count: 9), ""])
        #expect(terminal.cursor == Position(row: 2, column: 0))
        Self.expectConsistent(terminal)
    }

    @Test func clampsImpossibleSizes() {
        let terminal = VirtualTerminal(columns: 0, rows: -4)
        #expect(terminal.columns == 1)
        #expect(terminal.rows == 1)
        terminal.feed("多伦多")
        Self.expectConsistent(terminal)
        terminal.resize(columns: Int.max, rows: Int.max)
        #expect(terminal.columns == VirtualTerminal.maximumSize)
    }

    @Test func answersEmptyForARowOffTheScreen() {
        let terminal = VirtualTerminal(columns: 10, rows: 2)
        terminal.feed("a")
        #expect(terminal.text(row: 2).isEmpty)
        #expect(terminal.text(row: -1).isEmpty)
        #expect(terminal.cell(row: 0, column: 10) == nil)
    }

    @Test func joinsTheScreenWithoutTheEmptyRowsBelow() {
        let terminal = VirtualTerminal(columns: 10, rows: 6)
        terminal.feed("one\n\nthree")
        #expect(terminal.screen == "one\n\nthree")
        #expect(terminal.visibleText == "one\n\nthree")
    }
}
