/// Text with a meaning attached to each run (a warning, a dimmed hint), for presenters to
/// colour as their output allows.
///
/// Styles are semantic, never terminal codes: a console maps them to colours (or to nothing
/// under `NO_COLOR`), a test compares the runs.
package struct StyledText: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A meaning a run of text carries.
    package enum Style: Sendable, Hashable {
        /// Ordinary text.
        case plain
        /// Secondary text: hints, details, a dimmed container.
        case dim
        /// Emphasis: titles, labels.
        case bold
        /// Activity: spinners, a progress bar's filled part.
        case accent
        /// Something went well.
        case success
        /// Something needs the person's attention.
        case warning
        /// Something failed.
        case failure
    }

    /// A run of text in one style.
    package struct Run: Sendable, Hashable {
        /// The text; no control characters.
        package var text: String
        /// Its style.
        package var style: Style

        /// Creates a run.
        package init(_ text: String, style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    /// The runs, in order.
    package var runs: [Run]

    /// Creates styled text from runs.
    package init(_ runs: [Run] = []) {
        self.runs = runs.filter { !$0.text.isEmpty }
    }

    /// Creates text in one style.
    package init(_ text: String, style: Style = .plain) {
        self.init([Run(text, style: style)])
    }

    /// Plain text.
    package init(stringLiteral value: String) {
        self.init(value)
    }

    /// The text without styles.
    package var plainText: String { runs.map(\.text).joined() }

    /// The text without styles.
    package var description: String { plainText }

    /// The columns the text occupies (see ``TextWidth``).
    package var columns: Int { runs.reduce(0) { $0 + TextWidth.columns(of: $1.text) } }

    /// Appends a run.
    package mutating func append(_ text: String, style: Style = .plain) {
        guard !text.isEmpty else { return }
        if let last = runs.last, last.style == style {
            runs[runs.count - 1].text += text
        } else {
            runs.append(Run(text, style: style))
        }
    }

    /// Appends other styled text.
    package mutating func append(_ other: StyledText) {
        for run in other.runs { append(run.text, style: run.style) }
    }

    /// The two texts one after the other.
    package static func + (lhs: StyledText, rhs: StyledText) -> StyledText {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// The text cut to at most `width` columns, ending in `…` (in the style of the run it cut)
    /// when something was cut.
    package func truncated(toColumns width: Int) -> StyledText {
        guard columns > width else { return self }
        guard width > 0 else { return StyledText() }
        // One column is kept for the ellipsis: the runs are cut to `width - 1` columns.
        var result = StyledText()
        var used = 0
        for run in runs {
            let runWidth = TextWidth.columns(of: run.text)
            if used + runWidth <= width - 1 {
                result.append(run.text, style: run.style)
                used += runWidth
                continue
            }
            var head = ""
            for character in run.text {
                let next = TextWidth.columns(of: character)
                if used + next > width - 1 { break }
                head.append(character)
                used += next
            }
            result.append(head + "…", style: run.style)
            return result
        }
        return result
    }

    /// The text padded with plain spaces (or cut) to exactly `width` columns.
    package func padded(toColumns width: Int) -> StyledText {
        var result = truncated(toColumns: width)
        let missing = width - result.columns
        if missing > 0 { result.append(String(repeating: " ", count: missing)) }
        return result
    }
}
