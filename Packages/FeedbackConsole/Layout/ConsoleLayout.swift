package import Feedback
import Transport

/// How a console draws feedback: the live area (masks, HUD boxes, progress bars), alert
/// boxes, and the plain lines used where nothing may be redrawn.
///
/// Pure functions of a `FeedbackScene` and a width: no terminal, no clock, so
/// every drawing is tested as text. ``ConsolePresenter`` decides when to draw and how to put it on
/// screen.
package struct ConsoleLayout: Sendable {
    /// The sentences for retry notices, titles and summaries.
    package var catalog: MessageCatalog

    /// Creates a layout.
    package init(catalog: MessageCatalog) {
        self.catalog = catalog
    }

    /// The catalog's text of one of the console's own phrases, with `values` filled in; the
    /// English one when the catalog (one made before the phrase existed) lacks it, so that a
    /// line never shows a key's name.
    func phrase(_ key: MessageKey, _ values: [String: String] = [:]) -> String {
        catalog[key] != nil ? catalog.text(key, values) : MessageCatalog.english.text(key, values)
    }

    /// `parts` joined with the catalog's separator (`, `).
    private func listed(_ parts: [String]) -> String {
        parts.joined(separator: phrase(.listSeparator))
    }

    /// `done in 0.4 s`, or `failed after 2.8 s`: the outcome's word and the time it took.
    func summary(_ outcome: ActivityOutcome, elapsed: Duration, counted: String? = nil) -> String {
        let duration = Quantity.duration(elapsed)
        switch outcome {
        case .succeeded:
            return phrase(.summaryIn, ["outcome": counted ?? catalog.text(.done), "duration": duration])
        case .failed, .cancelled:
            let word = catalog.text(outcome == .failed ? .failed : .cancelled)
            let summary = phrase(.summaryAfter, ["outcome": word, "duration": duration])
            return counted.map { listed([summary, $0]) } ?? summary
        }
    }

    // MARK: - The live area

    /// The live area for `scene`, at most `width` columns wide.
    ///
    /// - Parameters:
    ///   - scene: What is live.
    ///   - width: The columns available (a presenter passes one less than the terminal's, so
    ///     that no line reaches the last column and wraps).
    ///   - tick: The animation tick: ten a second.
    /// - Returns: One styled line per row.
    package func liveLines(for scene: FeedbackScene, width: Int, tick: Int) -> [StyledText] {
        let width = max(8, width)
        var lines: [StyledText] = []
        for region in scene.regions {
            lines += regionLines(region, width: width, tick: tick)
        }
        for transfer in scene.transfers {
            lines.append(progressLine(transfer, width: width, tick: tick))
            if let retry = transfer.retry {
                lines.append(StyledText("  ↻ " + catalog.text(for: retry), style: .warning).truncated(toColumns: width))
            }
        }
        return lines
    }

    /// The rows a masked container occupies.
    func regionLines(_ region: FeedbackScene.Region, width: Int, tick: Int) -> [StyledText] {
        guard let entry = region.visibleMask else { return [] }
        let placement = entry.placement
        let inset = placement.inset
        let inner = max(4, width - inset.leading - inset.trailing)
        let indent = String(repeating: " ", count: inset.leading)
        let appearance = placement.appearance
        var status = maskStatus(appearance, tick: tick)
        if region.masks.count > 1 {
            status.append("  " + phrase(.requestsInRegion, ["count": "\(region.masks.count)"]), style: .dim)
        }
        if let retry = entry.retry { status.append("  ↻ " + catalog.text(for: retry), style: .warning) }
        let title = region.container.title

        var body: [StyledText]
        switch (region.container.kind, appearance.shape) {
        case (.panel, _):
            body = box(
                title: title, content: [appearance.shape == .hud ? centred(status, in: inner - 4) : status],
                width: inner, style: appearance.shape == .dim ? .dim : .plain)
        case (_, .hud):
            let boxWidth = min(inner, max(status.columns + 6, 24))
            let lines = box(title: title, content: [centred(status, in: boxWidth - 4)], width: boxWidth, style: .plain)
            let margin = String(repeating: " ", count: max(0, (inner - boxWidth) / 2))
            body = lines.map { StyledText(margin) + $0 }
        case (.row, _):
            var line = StyledText(title ?? "", style: appearance.shape == .dim ? .dim : .plain)
            if !line.runs.isEmpty { line.append("  ") }
            line.append(status)
            body = [line]
        case (.button, _):
            var line = StyledText("[ \(title ?? "…") ]", style: .dim)
            line.append(" ")
            line.append(status)
            body = [line]
        case (.refreshHeader, _):
            var line = StyledText(appearance.frame(at: tick), style: .accent)
            line.append(" ")
            line.append(title ?? appearance.text, style: .dim)
            if let retry = entry.retry { line.append("  ↻ " + catalog.text(for: retry), style: .warning) }
            body = [line]
        default:
            body = [status]
        }
        return body.map { (StyledText(indent) + $0).truncated(toColumns: width) }
    }

    /// A mask's frame and text.
    private func maskStatus(_ appearance: MaskAppearance, tick: Int) -> StyledText {
        if appearance.shape == .dim { return StyledText(appearance.text, style: .dim) }
        var status = StyledText(appearance.frame(at: tick), style: .accent)
        if !appearance.text.isEmpty {
            status.append(" ")
            status.append(appearance.text)
        }
        return status
    }

    /// A box `width` columns wide with an optional title in its top border.
    func box(title: String?, content: [StyledText], width: Int, style: StyledText.Style) -> [StyledText] {
        let inner = max(1, width - 4)
        var top = StyledText("╭─", style: style)
        if let title, !title.isEmpty {
            let shown = TextWidth.truncate(title, toColumns: max(1, width - 6))
            top.append(" ", style: style)
            top.append(shown, style: .bold)
            top.append(" ", style: style)
        }
        top.append(String(repeating: "─", count: max(0, width - 1 - top.columns)) + "╮", style: style)
        var lines = [top]
        for line in content {
            var row = StyledText("│ ", style: style)
            row.append(line.padded(toColumns: inner))
            row.append(" │", style: style)
            lines.append(row)
        }
        lines.append(StyledText("╰" + String(repeating: "─", count: max(0, width - 2)) + "╯", style: style))
        return lines
    }

    private func centred(_ text: StyledText, in width: Int) -> StyledText {
        let fitted = text.truncated(toColumns: width)
        let left = max(0, (width - fitted.columns) / 2)
        return StyledText(String(repeating: " ", count: left)) + fitted
    }

    /// A transfer's bar: `label  [█████░░░░░]  45%  12.3 MB / 27.0 MB  5.1 MB/s  ETA 3.0 s`, or
    /// with no total `label  ⠋  12.3 MB  5.1 MB/s`; parts are dropped, last first, until it fits.
    /// A batch's bar counts parts instead: `label  [███░░░░░░░]  35%  7/20  1 failed`.
    func progressLine(_ transfer: FeedbackScene.Transfer, width: Int, tick: Int) -> StyledText {
        if let count = transfer.count { return countLine(transfer, count: count, width: width) }
        let progress = transfer.progress
        let arrow = transfer.direction == .upload ? "↑ " : ""
        let label = arrow + transfer.label
        guard let progress else {
            return (StyledText(label + "  ") + StyledText(MaskAppearance.dots[tick % 10], style: .accent))
                .truncated(toColumns: width)
        }
        var parts: [StyledText] = []
        if let fraction = progress.fractionCompleted {
            let percent = StyledText(Quantity.percent(fraction), style: .bold)
            parts.append(percent)
            parts.append(StyledText("\(Quantity.bytes(progress.completed)) / \(Quantity.bytes(progress.total ?? 0))"))
        } else {
            parts.append(StyledText(Quantity.bytes(progress.completed)))
        }
        parts.append(StyledText(Quantity.rate(progress.bytesPerSecond), style: .dim))
        if let left = Quantity.remaining(
            completed: progress.completed, total: progress.total, bytesPerSecond: progress.bytesPerSecond)
        {
            parts.append(StyledText(phrase(.timeLeft, ["duration": Quantity.duration(seconds: left)]), style: .dim))
        }
        // The label keeps up to 12 columns and a bar at least 12 (a spinner needs 1); the least
        // important parts (time left, rate, byte counts) go first when they do not fit.
        let labelWidth = TextWidth.columns(of: label)
        let fraction = progress.fractionCompleted
        let smallestIndicator = fraction == nil ? 1 : 12
        var room = 0  // for the label and the indicator
        repeat {
            room = width - 2 - parts.reduce(0) { $0 + $1.columns + 2 }
            if room - min(labelWidth, 12) >= smallestIndicator || parts.count <= 1 { break }
            parts.removeLast()
        } while true
        let indicatorWidth = fraction == nil ? 1 : min(32, max(3, room - min(labelWidth, 12)))
        var line = StyledText(TextWidth.truncate(label, toColumns: max(1, room - indicatorWidth)))
        line.append("  ")
        line.append(indicator(fraction, width: indicatorWidth, tick: tick))
        for part in parts {
            line.append("  ")
            line.append(part)
        }
        return line.truncated(toColumns: width)
    }

    /// A batch's bar: `label  [███░░░░░░░]  35%  7/20  1 failed`; the failures, then the count,
    /// are dropped when they do not fit.
    func countLine(_ transfer: FeedbackScene.Transfer, count: CountProgress, width: Int) -> StyledText {
        let label = transfer.label
        var parts = [
            StyledText(Quantity.percent(count.fractionCompleted), style: .bold),
            StyledText("\(count.completed)/\(count.total)"),
        ]
        if count.failed > 0 {
            parts.append(StyledText(catalog.text(.countFailed, ["failed": "\(count.failed)"]), style: .failure))
        }
        // As for a transfer: the label keeps up to 12 columns and the bar at least 12.
        let labelWidth = TextWidth.columns(of: label)
        var room = 0
        repeat {
            room = width - 2 - parts.reduce(0) { $0 + $1.columns + 2 }
            if room - min(labelWidth, 12) >= 12 || parts.count <= 1 { break }
            parts.removeLast()
        } while true
        let indicatorWidth = min(32, max(3, room - min(labelWidth, 12)))
        var line = StyledText(TextWidth.truncate(label, toColumns: max(1, room - indicatorWidth)))
        line.append("  ")
        line.append(indicator(count.fractionCompleted, width: indicatorWidth, tick: 0))
        for part in parts {
            line.append("  ")
            line.append(part)
        }
        return line.truncated(toColumns: width)
    }

    /// A bar `width` columns wide (brackets included), or a spinner when the fraction is unknown.
    private func indicator(_ fraction: Double?, width: Int, tick: Int) -> StyledText {
        guard let fraction else { return StyledText(MaskAppearance.dots[tick % 10], style: .accent) }
        let inner = max(1, width - 2)
        let filled = min(inner, Int((fraction * Double(inner)).rounded(.down)))
        var bar = StyledText("[")
        bar.append(String(repeating: "█", count: filled), style: .accent)
        bar.append(String(repeating: "░", count: inner - filled), style: .dim)
        bar.append("]")
        return bar
    }

    /// How many rows of a terminal `columns` wide a line of `text` takes once the terminal has
    /// wrapped it: its clusters placed one after the other, a wide one that does not fit at the
    /// end of a row going whole to the next, as terminals reflow a line; at least one.
    ///
    /// For text without wide characters this is the line's width divided by `columns`, rounded up.
    package static func rowsOccupied(by text: String, columns: Int) -> Int {
        let columns = max(1, columns)
        var rows = 1
        var used = 0
        for character in text {
            let next = min(columns, TextWidth.columns(of: character))
            if used + next > columns {
                rows += 1
                used = 0
            }
            used += next
        }
        return rows
    }

    // MARK: - What is printed for good

    /// The lines a scene's output prints above the live area, in a terminal that redraws: an
    /// alert box for a message, the line itself for a log line, a finished bar for a transfer;
    /// nothing for a finished mask (it simply goes) or a retry (shown live).
    package func permanentLines(for output: FeedbackScene.Output, width: Int) -> [StyledText] {
        switch output {
        case .message(let message, let container):
            return alertBox(message, container: container, width: width)
        case .logLine(let line, _):
            return [StyledText(line).truncated(toColumns: width)]
        case .transferSummary(let transfer, let outcome, let elapsed):
            let style: StyledText.Style = outcome == .succeeded ? .success : outcome == .failed ? .failure : .dim
            var line = StyledText(outcome == .succeeded ? "✓ " : "✗ ", style: style)
            line.append(transfer.label)
            line.append("  " + transferSummaryText(transfer, outcome: outcome, elapsed: elapsed), style: .dim)
            return [line.truncated(toColumns: width)]
        case .maskSummary, .retry:
            return []
        }
    }

    /// A message in a box titled `Warning` or `Done` (or the message's own title), its text
    /// wrapped to the width, and the detail dimmed under it.
    package func alertBox(_ message: FeedbackMessage, container: ContainerInfo?, width: Int) -> [StyledText] {
        let style: StyledText.Style = message.severity == .warning ? .warning : .success
        var title = message.title ?? catalog.text(message.severity == .warning ? .warningTitle : .informationTitle)
        if let place = container?.title, !place.isEmpty { title += " · " + place }
        let longest = ([message.text] + (message.detail.map { [$0] } ?? [])).map(TextWidth.columns(of:)).max() ?? 0
        let boxWidth = max(min(width, longest + 4), min(width, max(24, TextWidth.columns(of: title) + 6)))
        var content = wrap(message.text, width: boxWidth - 4).map { StyledText($0) }
        if let detail = message.detail {
            content += wrap(detail, width: boxWidth - 4).map { StyledText($0, style: .dim) }
        }
        var lines = box(title: nil, content: content, width: boxWidth, style: style)
        lines[0] = titledBorder(title, width: boxWidth, style: style)
        return lines
    }

    private func titledBorder(_ title: String, width: Int, style: StyledText.Style) -> StyledText {
        var top = StyledText("╭─ ", style: style)
        top.append(TextWidth.truncate(title, toColumns: max(1, width - 6)), style: style)
        top.append(" ", style: style)
        top.append(String(repeating: "─", count: max(0, width - 1 - top.columns)) + "╮", style: style)
        return top
    }

    /// `text` broken into lines of at most `width` columns, at spaces where possible.
    ///
    /// A word longer than a line is cut where it must be, and a character wider than the whole
    /// line (a wide one in a line of one column) gets a line of its own. Each word and each
    /// character of a cut word is measured once, so the time grows with the text's length, not
    /// with its square: the text may be a server's message of any size.
    package func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ") {
                let columns = TextWidth.columns(of: word)
                let separator = line.isEmpty ? 0 : 1
                if used + separator + columns <= width {
                    if separator > 0 { line += " " }
                    line += word
                    used += separator + columns
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                line = String(word)
                used = columns
                guard columns > width else { continue }
                line = ""
                used = 0
                for character in word {
                    let next = TextWidth.columns(of: character)
                    if !line.isEmpty, used + next > width {
                        lines.append(line)
                        line = ""
                        used = 0
                    }
                    line.append(character)
                    used += next
                }
            }
            lines.append(line)
        }
        return lines
    }

    // MARK: - Plain lines

    /// The plain lines printed for an output where nothing may be redrawn: the message, the
    /// log line, the retry, or the request's one summary line.
    package func plainLines(for output: FeedbackScene.Output) -> [StyledText] {
        switch output {
        case .message(let message, let container):
            var title = message.title ?? catalog.text(message.severity == .warning ? .warningTitle : .informationTitle)
            if let place = container?.title, !place.isEmpty { title += " (\(place))" }
            var lines = [
                StyledText(title + ": ", style: message.severity == .warning ? .warning : .success)
                    + StyledText(message.text)
            ]
            if let detail = message.detail { lines.append(StyledText("  " + detail, style: .dim)) }
            return lines
        case .logLine(let line, _):
            return [StyledText(line)]
        case .retry(let notice, let label):
            return [StyledText(plainLabel(label) + ": " + catalog.text(for: notice), style: .warning)]
        case .maskSummary(let placement, let outcome, let elapsed):
            let label = maskLabel(placement)
            let text = summary(outcome, elapsed: elapsed)
            return [StyledText("\(label): \(text)", style: outcome == .succeeded ? .plain : .failure)]
        case .transferSummary(let transfer, let outcome, let elapsed):
            return [
                StyledText(
                    "\(transfer.label): \(transferSummaryText(transfer, outcome: outcome, elapsed: elapsed))",
                    style: outcome == .succeeded ? .plain : .failure)
            ]
        }
    }

    /// The plain status line of a running request, printed at most every two seconds.
    package func plainStatus(of transfer: FeedbackScene.Transfer) -> StyledText {
        var text = "\(transfer.label): "
        if let count = transfer.count {
            text += "\(Quantity.percent(count.fractionCompleted)) \(catalog.text(for: count))"
        } else if let progress = transfer.progress {
            var parts: [String]
            if let fraction = progress.fractionCompleted {
                let bytes = phrase(
                    .bytesOfTotal,
                    ["completed": Quantity.bytes(progress.completed), "total": Quantity.bytes(progress.total ?? 0)])
                parts = ["\(Quantity.percent(fraction)) \(bytes)"]
            } else {
                parts = [Quantity.bytes(progress.completed)]
            }
            parts.append(Quantity.rate(progress.bytesPerSecond))
            if let left = Quantity.remaining(
                completed: progress.completed, total: progress.total, bytesPerSecond: progress.bytesPerSecond)
            {
                parts.append(phrase(.timeLeft, ["duration": Quantity.duration(seconds: left)]))
            }
            text += listed(parts)
        } else {
            text += phrase(.waiting)
        }
        return StyledText(text)
    }

    /// The plain status line of a mask still on after a while.
    package func plainStatus(of entry: FeedbackScene.MaskEntry, elapsed: Duration) -> StyledText {
        StyledText("\(maskLabel(entry.placement)): " + phrase(.runningFor, ["duration": Quantity.duration(elapsed)]))
    }

    /// What a mask's request is called in plain lines: its text without a trailing ellipsis,
    /// and the container's title. A refresh header is called by its label alone, as the live area shows it.
    func maskLabel(_ placement: MaskPlacement) -> String {
        let text = plainLabel(placement.appearance.text)
        if placement.container.kind == .refreshHeader, let title = placement.container.title, !title.isEmpty {
            return plainLabel(title)
        }
        guard let title = placement.container.title, !title.isEmpty else {
            return text.isEmpty ? phrase(.request) : text
        }
        return text.isEmpty ? title : "\(text) (\(title))"
    }

    private func plainLabel(_ text: String) -> String {
        var text = text
        while text.hasSuffix("…") || text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private func transferSummaryText(_ transfer: FeedbackScene.Transfer, outcome: ActivityOutcome, elapsed: Duration)
        -> String
    {
        if let count = transfer.count {
            return summary(outcome, elapsed: elapsed, counted: catalog.text(for: count))
        }
        guard outcome == .succeeded else { return summary(outcome, elapsed: elapsed) }
        let bytes = transfer.progress?.completed ?? 0
        let done = phrase(
            .summaryTransferred,
            ["outcome": catalog.text(.done), "bytes": Quantity.bytes(bytes), "duration": Quantity.duration(elapsed)])
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? listed([done, Quantity.rate(Double(bytes) / seconds)]) : done
    }
}
