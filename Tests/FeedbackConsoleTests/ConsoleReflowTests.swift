import Feedback
import FeedbackConsole
import FeedbackTesting
import Testing
import Transport

/// A terminal that reflows its lines when it gets narrower (tmux, VTE, kitty) wraps each row
/// of the live area onto several: the next redraw clears all of them, and leaves no fragment.
@Suite struct ConsoleReflowTests {
    /// A harness with a line of output above three bars of nearly the terminal's width.
    private func drawnBars(columns: Int) -> (ConsoleHarness, [TestBar], [ActivityID]) {
        let harness = ConsoleHarness(columns: columns)
        harness.terminal.feed("output above\n")
        let bars = ["radar.png", "manual.pdf", "photo.jpg"].map {
            TestBar(progressLabel: $0, presenter: harness.presenter)
        }
        let activities = bars.map { _ in ActivityID.next() }
        for (bar, activity) in zip(bars, activities) {
            bar.progressBegan(activity)
            bar.progressChanged(
                activity, direction: .download,
                progress: TransferProgress(
                    completed: 300_000, total: 1_000_000, bytesPerSecond: 100_000, isFinal: false))
        }
        harness.refresh()
        return (harness, bars, activities)
    }

    @Test(arguments: [40, 30, 17])
    func narrowingClearsEveryRowTheOldLinesWrappedOnto(columns: Int) {
        let (harness, bars, activities) = drawnBars(columns: 100)
        let wide = harness.screenRows
        #expect(wide.count == 4, "\(wide)")
        #expect(wide.dropFirst().allSatisfy { TextWidth.columns(of: $0) > 60 }, "\(wide)")

        harness.terminal.resize(columns: columns, rows: 24, reflowing: true)
        // The terminal wrapped each bar onto several rows.
        #expect(harness.screenRows.count > 4)
        harness.refresh()

        let rows = harness.screenRows
        #expect(rows.count == 4, "no fragment of the wide bars is left:\n\(rows.joined(separator: "\n"))")
        #expect(rows.first == "output above")
        #expect(rows.dropFirst().allSatisfy { TextWidth.columns(of: $0) < columns }, "\(rows)")
        #expect(harness.terminal.cursor == VirtualTerminal.Position(row: 4, column: 0))
        for (bar, activity) in zip(bars, activities) { bar.progressEnded(activity, outcome: .succeeded) }
    }

    @Test func theLinesPrintedAboveTheAreaAfterANarrowingLandOnAClearedArea() {
        let (harness, bars, activities) = drawnBars(columns: 100)
        harness.terminal.resize(columns: 40, rows: 24, reflowing: true)
        // A message is printed above the area at once, clearing the area first.
        TestWarner(presenter: harness.presenter).show(FeedbackMessage(severity: .warning, text: "Slow network."))
        let rows = harness.screenRows
        #expect(rows.first == "output above")
        #expect(rows.contains { $0.contains("Slow network.") })
        #expect(!rows.contains { $0.contains("ETA") && TextWidth.columns(of: $0) >= 40 })
        // No row is a piece of a wide bar: each bar is drawn whole, once.
        #expect(rows.filter { $0.hasPrefix("radar.png") }.count == 1, "\(rows)")
        #expect(rows.count == 1 + 3 + 3, "the line above, the box, the bars: \(rows)")
        for (bar, activity) in zip(bars, activities) { bar.progressEnded(activity, outcome: .succeeded) }
    }

    @Test func wideningDoesNotClearMoreThanTheArea() {
        let (harness, bars, activities) = drawnBars(columns: 60)
        harness.terminal.resize(columns: 100, rows: 24, reflowing: true)
        harness.refresh()
        let rows = harness.screenRows
        #expect(rows.first == "output above")
        #expect(rows.count == 4, "\(rows)")
        for (bar, activity) in zip(bars, activities) { bar.progressEnded(activity, outcome: .succeeded) }
        #expect(harness.screenRows.dropFirst().allSatisfy { $0.hasPrefix("✓") })
        #expect(harness.screenRows.first == "output above")
    }

    @Test(arguments: [
        ("", 40, 1),
        ("abc", 40, 1),
        (String(repeating: "a", count: 40), 40, 1),
        (String(repeating: "a", count: 41), 40, 2),
        (String(repeating: "a", count: 99), 40, 3),
        (String(repeating: "a", count: 99), 1, 99),
        // Wide characters that would straddle a row's end go whole to the next.
        ("ab多伦多", 5, 2),
        (String(repeating: "多", count: 5), 3, 5),
        ("1\u{FE0F}\u{20E3}1\u{FE0F}\u{20E3}", 3, 2),
    ])
    func countsTheRowsALineTakesOnceWrapped(text: String, columns: Int, rows: Int) {
        #expect(ConsoleLayout.rowsOccupied(by: text, columns: columns) == rows)
    }
}
