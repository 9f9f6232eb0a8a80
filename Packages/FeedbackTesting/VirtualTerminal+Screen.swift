import Feedback

extension VirtualTerminal {
    /// The grid, the cursor, the modes and the parser: everything behind the terminal's lock.
    ///
    /// The parser is a small state machine after the VT500 one terminals implement: ground
    /// (text and control characters), escape (after `ESC`), control sequence (after `ESC [`)
    /// and operating system command (after `ESC ]`, until `BEL` or `ESC \`). Control
    /// characters inside a sequence are executed, as terminals do; anything else a sequence
    /// cannot hold ends it, is recorded as unsupported, and is then read as ordinary input.
    struct Screen: Sendable {
        private enum Parser: Sendable {
            /// Text and control characters.
            case ground
            /// After `ESC`, with the intermediate characters so far.
            case escape(String)
            /// After `ESC [`, with the parameter and intermediate characters so far; `overflowed`
            /// once the sequence grew past ``maximumSequenceLength`` (it is then dropped whole).
            case controlSequence(String, overflowed: Bool)
            /// After `ESC ]`, with its text so far, and whether the last character was `ESC`.
            case operatingSystemCommand(String, sawEscape: Bool)
        }

        /// The longest control sequence kept; longer ones are recorded cut, and not interpreted.
        private static let maximumSequenceLength = 64
        /// The largest number a parameter holds; larger ones are clamped to it.
        private static let maximumParameter = 99_999

        private(set) var columns: Int
        private(set) var rows: Int
        private let translatesNewlines: Bool
        private let scrollbackLimit: Int

        private(set) var grid: [[Cell]]
        /// For each row, whether its text went on to the next row by auto-wrap (a soft wrap),
        /// rather than ending there: what a reflow joins.
        private var wrapped: [Bool]
        private(set) var scrollback: [String] = []
        private(set) var row = 0
        private(set) var column = 0
        /// Set after the last column was written with auto-wrap on: the next printable
        /// character goes to the next line.
        private var pendingWrap = false
        private(set) var autoWrap = true
        private(set) var isCursorVisible = true
        private var attributes = Attributes.plain
        private(set) var sawEscapeSequences = false
        private(set) var sawColor = false
        private(set) var unsupported: [String] = []
        private var parser = Parser.ground

        init(columns: Int, rows: Int, translatesNewlines: Bool, scrollbackLimit: Int) {
            self.columns = columns
            self.rows = rows
            self.translatesNewlines = translatesNewlines
            self.scrollbackLimit = scrollbackLimit
            grid = Array(repeating: Array(repeating: .blank, count: columns), count: rows)
            wrapped = Array(repeating: false, count: rows)
        }

        /// Every row as text, without trailing spaces.
        var lines: [String] { grid.map(Self.text(of:)) }

        /// A row as text: each cell's cluster (none for a continuation), without trailing spaces.
        static func text(of cells: [Cell]) -> String {
            var text = ""
            for cell in cells where !cell.isContinuation { text += cell.text }
            while text.last == " " { text.removeLast() }
            return text
        }

        // MARK: - Parsing

        mutating func feed(_ text: String) {
            for character in text { consume(character) }
        }

        private mutating func consume(_ character: Character) {
            switch parser {
            case .ground:
                ground(character)
            case .escape(let intermediates):
                escape(character, intermediates: intermediates)
            case .controlSequence(let body, let overflowed):
                controlSequence(character, body: body, overflowed: overflowed)
            case .operatingSystemCommand(let body, let sawEscape):
                operatingSystemCommand(character, body: body, sawEscape: sawEscape)
            }
        }

        /// The character's byte when it is one ASCII scalar. (`Character.asciiValue` will not
        /// do: it gives `\n` for the cluster `\r\n`.)
        private static func ascii(_ character: Character) -> UInt8? {
            let scalars = character.unicodeScalars
            guard scalars.count == 1, let scalar = scalars.first, scalar.isASCII else { return nil }
            return UInt8(scalar.value)
        }

        private mutating func ground(_ character: Character) {
            if let byte = Self.ascii(character), byte < 0x20 || byte == 0x7F {
                execute(byte)
                return
            }
            if character == "\r\n" {
                execute(0x0D)
                execute(0x0A)
                return
            }
            let scalars = character.unicodeScalars
            // C1 control characters: terminals reading UTF-8 ignore them.
            if scalars.count == 1, let scalar = scalars.first, (0x80...0x9F).contains(scalar.value) { return }
            let width = TextWidth.columns(of: character)
            if width == 0 {
                attach(character)
            } else {
                put(character, width: width)
            }
        }

        private mutating func escape(_ character: Character, intermediates: String) {
            guard let byte = Self.ascii(character) else {
                record("ESC" + intermediates)
                parser = .ground
                ground(character)
                return
            }
            switch byte {
            case 0x1B:
                record("ESC" + intermediates)
                parser = .escape("")
            case 0x18, 0x1A:
                // CAN and SUB cancel a sequence.
                record("ESC" + intermediates)
                parser = .ground
            case 0x00..<0x20, 0x7F:
                execute(byte)
            case 0x20...0x2F:
                let intermediates = intermediates + String(character)
                if intermediates.count > Self.maximumSequenceLength {
                    record("ESC" + intermediates)
                    parser = .ground
                } else {
                    parser = .escape(intermediates)
                }
            case 0x5B where intermediates.isEmpty:
                parser = .controlSequence("", overflowed: false)
            case 0x5D where intermediates.isEmpty:
                parser = .operatingSystemCommand("", sawEscape: false)
            default:
                // A final character: `ESC 7`, `ESC c`, `ESC ( B`… none of which is interpreted.
                record("ESC" + intermediates + String(character))
                parser = .ground
            }
        }

        private mutating func controlSequence(_ character: Character, body: String, overflowed: Bool) {
            guard let byte = Self.ascii(character) else {
                record("ESC[" + body)
                parser = .ground
                ground(character)
                return
            }
            switch byte {
            case 0x1B:
                record("ESC[" + body)
                parser = .escape("")
            case 0x18, 0x1A:
                record("ESC[" + body)
                parser = .ground
            case 0x00..<0x20, 0x7F:
                execute(byte)
            case 0x20...0x3F:
                if overflowed || body.count >= Self.maximumSequenceLength {
                    parser = .controlSequence(body, overflowed: true)
                } else {
                    parser = .controlSequence(body + String(character), overflowed: false)
                }
            default:
                parser = .ground
                if overflowed {
                    record("ESC[" + body)
                } else {
                    dispatch(body: body, final: character)
                }
            }
        }

        private mutating func operatingSystemCommand(_ character: Character, body: String, sawEscape: Bool) {
            if sawEscape {
                record("ESC]" + body)
                if character == "\\" {
                    parser = .ground
                } else {
                    // The `ESC` began a new sequence.
                    parser = .escape("")
                    consume(character)
                }
                return
            }
            switch Self.ascii(character) {
            case 0x07:
                record("ESC]" + body)
                parser = .ground
            case 0x1B:
                parser = .operatingSystemCommand(body, sawEscape: true)
            case 0x18, 0x1A:
                record("ESC]" + body)
                parser = .ground
            default:
                let body = body.count < Self.maximumSequenceLength ? body + String(character) : body
                parser = .operatingSystemCommand(body, sawEscape: false)
            }
        }

        private mutating func record(_ sequence: String) {
            unsupported.append(String(sequence.prefix(Self.maximumSequenceLength)))
        }

        // MARK: - Control characters

        private mutating func execute(_ byte: UInt8) {
            switch byte {
            case 0x08:
                pendingWrap = false
                column = max(0, column - 1)
            case 0x09:
                column = min(columns - 1, (column / 8 + 1) * 8)
            case 0x0A:
                lineFeed()
                if translatesNewlines { column = 0 }
            case 0x0B, 0x0C:
                lineFeed()
            case 0x0D:
                pendingWrap = false
                column = 0
            case 0x1B:
                sawEscapeSequences = true
                parser = .escape("")
            default:
                // BEL and the other control characters draw nothing.
                break
            }
        }

        private mutating func lineFeed() {
            pendingWrap = false
            if row == rows - 1 {
                scrollUp()
            } else {
                row += 1
            }
        }

        private mutating func scrollUp() {
            let top = grid.removeFirst()
            grid.append(Array(repeating: .blank, count: columns))
            wrapped.removeFirst()
            wrapped.append(false)
            scrollback.append(Self.text(of: top))
            if scrollback.count > scrollbackLimit {
                scrollback.removeFirst(scrollback.count - scrollbackLimit)
            }
        }

        // MARK: - Text

        private mutating func put(_ character: Character, width: Int) {
            // A two-column character on a one-column screen takes the one column.
            let width = min(width, columns)
            if pendingWrap {
                wrapped[row] = true
                column = 0
                lineFeed()
            }
            if column + width > columns {
                // A wide character in the last column: xterm moves it to the next line.
                if autoWrap {
                    wrapped[row] = true
                    column = 0
                    lineFeed()
                } else {
                    column = columns - width
                }
            }
            clearFragments(row: row, from: column, through: column + width - 1)
            grid[row][column] = Cell(text: String(character), attributes: attributes)
            if width == 2 {
                grid[row][column + 1] = Cell(text: "", isContinuation: true, attributes: attributes)
            }
            if column + width >= columns {
                column = columns - 1
                pendingWrap = autoWrap
            } else {
                column += width
            }
        }

        /// Adds a zero-width cluster (a combining mark written on its own) to the cell before
        /// the cursor.
        private mutating func attach(_ character: Character) {
            var target = pendingWrap ? column : column - 1
            if target >= 0, grid[row][target].isContinuation { target -= 1 }
            guard target >= 0 else { return }
            grid[row][target].text.append(character)
        }

        /// Blanks the halves of wide characters that lie partly inside `first...last` of `row`,
        /// before those cells are written or erased.
        private mutating func clearFragments(row: Int, from first: Int, through last: Int) {
            if first > 0, grid[row][first].isContinuation {
                grid[row][first - 1] = .blank
            }
            if last + 1 < columns, grid[row][last + 1].isContinuation {
                grid[row][last + 1] = .blank
            }
        }

        private mutating func erase(row: Int, from first: Int, through last: Int) {
            let first = max(0, first)
            let last = min(columns - 1, last)
            guard first <= last else { return }
            clearFragments(row: row, from: first, through: last)
            for index in first...last { grid[row][index] = .blank }
            // A row whose end is erased no longer goes on to the next.
            if last == columns - 1 { wrapped[row] = false }
        }

        // MARK: - Control sequences

        private mutating func dispatch(body: String, final: Character) {
            let sequence = "ESC[" + body + String(final)
            var parameterText = Substring(body)
            var marker: Character?
            if let first = parameterText.first, "<=>?".contains(first) {
                marker = first
                parameterText = parameterText.dropFirst()
            }
            let isParameter: (Character) -> Bool = { ("0"..."9").contains($0) || $0 == ";" }
            guard parameterText.allSatisfy(isParameter) else {
                // Sub-parameters (`38:5:1`) or intermediates: not interpreted, but a colour is a colour.
                if marker == nil, final == "m" { sawColor = true }
                record(sequence)
                return
            }
            let parameters = Self.parameters(parameterText)
            switch (marker, final) {
            case (nil, "A"):
                moveCursor(toRow: row - Self.count(parameters), column: column)
            case (nil, "B"):
                moveCursor(toRow: row + Self.count(parameters), column: column)
            case (nil, "C"):
                moveCursor(toRow: row, column: column + Self.count(parameters))
            case (nil, "D"):
                moveCursor(toRow: row, column: column - Self.count(parameters))
            case (nil, "E"):
                moveCursor(toRow: row + Self.count(parameters), column: 0)
            case (nil, "F"):
                moveCursor(toRow: row - Self.count(parameters), column: 0)
            case (nil, "G"):
                moveCursor(toRow: row, column: Self.count(parameters) - 1)
            case (nil, "H"), (nil, "f"):
                moveCursor(toRow: Self.count(parameters, at: 0) - 1, column: Self.count(parameters, at: 1) - 1)
            case (nil, "K"):
                eraseInLine(parameters.first ?? nil, sequence: sequence)
            case (nil, "J"):
                eraseInDisplay(parameters.first ?? nil, sequence: sequence)
            case (nil, "m"):
                selectGraphicRendition(parameters, sequence: sequence)
            case ("?", "h"), ("?", "l"):
                setModes(parameters, on: final == "h", sequence: sequence)
            default:
                record(sequence)
            }
        }

        /// The parameters of a sequence: `nil` for an empty one (its default applies), each
        /// clamped to ``maximumParameter``.
        private static func parameters(_ text: Substring) -> [Int?] {
            guard !text.isEmpty else { return [] }
            return text.split(separator: ";", omittingEmptySubsequences: false).map { field in
                guard !field.isEmpty else { return nil }
                var value = 0
                for digit in field.unicodeScalars {
                    value = min(maximumParameter, value * 10 + Int(digit.value - 0x30))
                }
                return value
            }
        }

        /// A count parameter: 1 when missing or 0, as terminals read them.
        private static func count(_ parameters: [Int?], at index: Int = 0) -> Int {
            guard parameters.indices.contains(index), let value = parameters[index] else { return 1 }
            return max(1, value)
        }

        private mutating func moveCursor(toRow newRow: Int, column newColumn: Int) {
            pendingWrap = false
            row = min(max(0, newRow), rows - 1)
            column = min(max(0, newColumn), columns - 1)
        }

        private mutating func eraseInLine(_ mode: Int?, sequence: String) {
            switch mode ?? 0 {
            case 0: erase(row: row, from: column, through: columns - 1)
            case 1: erase(row: row, from: 0, through: column)
            case 2: erase(row: row, from: 0, through: columns - 1)
            default:
                record(sequence)
                return
            }
            pendingWrap = false
        }

        private mutating func eraseInDisplay(_ mode: Int?, sequence: String) {
            switch mode ?? 0 {
            case 0:
                erase(row: row, from: column, through: columns - 1)
                for below in (row + 1)..<rows { erase(row: below, from: 0, through: columns - 1) }
            case 1:
                for above in 0..<row { erase(row: above, from: 0, through: columns - 1) }
                erase(row: row, from: 0, through: column)
            case 2:
                for index in 0..<rows { erase(row: index, from: 0, through: columns - 1) }
            case 3:
                scrollback = []
            default:
                record(sequence)
                return
            }
            pendingWrap = false
        }

        private mutating func selectGraphicRendition(_ parameters: [Int?], sequence: String) {
            let codes = parameters.isEmpty ? [0] : parameters.map { $0 ?? 0 }
            var interpretedAll = true
            var index = 0
            while index < codes.count {
                let code = codes[index]
                index += 1
                switch code {
                case 0: attributes = .plain
                case 1: attributes.bold = true
                case 2: attributes.dim = true
                case 22:
                    attributes.bold = false
                    attributes.dim = false
                case 30...37, 90...97: attributes.foreground = code
                case 39: attributes.foreground = nil
                case 38, 48:
                    // An extended colour: skip its own parameters (`5;n` or `2;r;g;b`).
                    interpretedAll = false
                    if index < codes.count { index += codes[index] == 2 ? 4 : 2 }
                default:
                    interpretedAll = false
                }
                if ![0, 22, 39].contains(code) { sawColor = true }
            }
            if !interpretedAll { record(sequence) }
        }

        private mutating func setModes(_ parameters: [Int?], on: Bool, sequence: String) {
            var interpretedAll = !parameters.isEmpty
            for mode in parameters {
                switch mode {
                case 25:
                    isCursorVisible = on
                case 7:
                    autoWrap = on
                    if !on { pendingWrap = false }
                default:
                    interpretedAll = false
                }
            }
            if !interpretedAll { record(sequence) }
        }

        // MARK: - Resizing

        mutating func resize(columns newColumns: Int, rows newRows: Int, reflowing: Bool) {
            if reflowing, newColumns != columns {
                reflow(columns: newColumns, rows: newRows)
                return
            }
            if newColumns != columns {
                grid = grid.map { cells in
                    var cells = cells
                    if newColumns < cells.count {
                        // A wide character cut in half is blanked.
                        if cells[newColumns].isContinuation { cells[newColumns - 1] = .blank }
                        cells.removeLast(cells.count - newColumns)
                    } else {
                        cells += Array(repeating: .blank, count: newColumns - cells.count)
                    }
                    return cells
                }
                columns = newColumns
                wrapped = Array(repeating: false, count: rows)
            }
            if newRows < rows {
                // Rows above the cursor scroll off so that it stays on screen.
                let scrolled = max(0, row - (newRows - 1))
                for _ in 0..<scrolled {
                    scrollback.append(Self.text(of: grid.removeFirst()))
                }
                if scrollback.count > scrollbackLimit {
                    scrollback.removeFirst(scrollback.count - scrollbackLimit)
                }
                row -= scrolled
                wrapped.removeFirst(scrolled)
                grid.removeLast(grid.count - newRows)
                wrapped.removeLast(wrapped.count - newRows)
            } else if newRows > rows {
                grid += Array(repeating: Array(repeating: .blank, count: columns), count: newRows - rows)
                wrapped += Array(repeating: false, count: newRows - rows)
            }
            rows = newRows
            pendingWrap = false
            row = min(row, rows - 1)
            column = min(column, columns - 1)
        }

        /// Changes the width as a terminal that reflows its lines does (tmux, VTE, kitty):
        /// rows joined by a soft wrap are one line, each line is wrapped again at the new
        /// width (a wide character that does not fit at the end of a row goes whole to the
        /// next), and the cursor stays on the character it was on.
        ///
        /// Blank rows below the cursor go first when the lines need more rows than the
        /// screen has, then rows at the top go to the scrollback.
        private mutating func reflow(columns newColumns: Int, rows newRows: Int) {
            // The logical lines, each without its trailing blank cells, and where the cursor is.
            var lines: [[Cell]] = []
            var current: [Cell] = []
            var cursorLine = 0
            var cursorOffset = 0
            for index in 0..<rows {
                if index == row {
                    cursorLine = lines.count
                    cursorOffset = current.count + column
                }
                if wrapped[index], index < rows - 1 {
                    current += grid[index]
                    continue
                }
                var cells = grid[index]
                while cells.last == .blank { cells.removeLast() }
                lines.append(current + cells)
                current = []
            }

            var newGrid: [[Cell]] = []
            var newWrapped: [Bool] = []
            var cursor: (row: Int, column: Int)?
            for (index, line) in lines.enumerated() {
                var cells: [Cell] = []
                for (offset, cell) in line.enumerated() where !cell.isContinuation {
                    let isWide = offset + 1 < line.count && line[offset + 1].isContinuation
                    let width = min(isWide ? 2 : 1, newColumns)
                    if cells.count + width > newColumns {
                        newGrid.append(cells + Array(repeating: .blank, count: newColumns - cells.count))
                        newWrapped.append(true)
                        cells = []
                    }
                    if index == cursorLine, cursor == nil, offset >= cursorOffset {
                        cursor = (newGrid.count, cells.count)
                    }
                    cells.append(cell)
                    if width == 2 { cells.append(line[offset + 1]) }
                }
                if index == cursorLine, cursor == nil {
                    // Past the line's text: as far past it as it was, within the row.
                    cursor = (newGrid.count, min(newColumns - 1, cells.count + cursorOffset - line.count))
                }
                newGrid.append(cells + Array(repeating: .blank, count: newColumns - cells.count))
                newWrapped.append(false)
            }
            var (cursorRow, cursorColumn) = cursor ?? (0, 0)

            let blankRow = Array(repeating: Cell.blank, count: newColumns)
            while newGrid.count > newRows, newGrid.count - 1 > cursorRow, newGrid.last == blankRow {
                newGrid.removeLast()
                newWrapped.removeLast()
            }
            let scrolled = min(max(0, newGrid.count - newRows), cursorRow)
            for top in newGrid.prefix(scrolled) { scrollback.append(Self.text(of: top)) }
            if scrollback.count > scrollbackLimit {
                scrollback.removeFirst(scrollback.count - scrollbackLimit)
            }
            newGrid.removeFirst(scrolled)
            newWrapped.removeFirst(scrolled)
            cursorRow -= scrolled
            if newGrid.count > newRows {
                newGrid.removeLast(newGrid.count - newRows)
                newWrapped.removeLast(newWrapped.count - newRows)
            }
            while newGrid.count < newRows {
                newGrid.append(blankRow)
                newWrapped.append(false)
            }
            grid = newGrid
            wrapped = newWrapped
            columns = newColumns
            rows = newRows
            pendingWrap = false
            row = min(cursorRow, rows - 1)
            column = min(cursorColumn, columns - 1)
        }
    }
}
