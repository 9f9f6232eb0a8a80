import Feedback
import FeedbackConsole
import FeedbackTesting
import Mapping
import Testing
import Transport

/// The console under awkward input and timing: controls in server text, output printed while
/// requests run, bursts of log lines, a finish with a region still masked.
@Suite struct ConsolePresenterRobustnessTests {
    @Test func controlCharactersKeepTheAlertBoxAligned() {
        let harness = ConsoleHarness(columns: 60)
        TestWarner(presenter: harness.presenter).warn(
            BusinessError(code: 500, serverMessage: "tab\there, escape\u{1B}[2J and\r\nbreak"))
        let widths = Set(harness.screenRows.map { TextWidth.columns(of: $0) })
        #expect(widths.count == 1, "\(harness.screenRows)")
    }

    @Test func feedbackPresentedInsideWithLiveAreaClearedIsDrawnAfterIt() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let first = ActivityID.next()
        loader.begin(first)
        harness.refresh()
        let second = ActivityID.next()
        harness.presenter.withLiveAreaCleared {
            // Presenting here must neither deadlock nor draw over the caller's output.
            TestLoader(container: ListRow(label: "Paris"), presenter: harness.presenter).begin(second)
            harness.terminal.feed("prompt> \n")
            #expect(harness.terminal.isCursorVisible)
        }
        #expect(harness.screenRows == ["prompt>", "⠋ Loading…", "Paris  ⠋ Loading…"])
        loader.end(first, outcome: .succeeded)
        loader.end(second, outcome: .succeeded)
    }

    @Test func logLinesWaitForTheNextRedrawInsteadOfRedrawingEach() {
        let harness = ConsoleHarness()
        let bar = TestBar(progressLabel: "radar.png", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        harness.refresh()
        let redraws = harness.presenter.redrawCount
        let log = ScrollingLog(id: "busy", presenter: harness.presenter)
        for line in 0..<100 { log.append("line \(line)") }
        #expect(harness.presenter.redrawCount == redraws)
        harness.refresh()
        #expect(harness.presenter.redrawCount <= redraws + 2)
        #expect(harness.terminal.visibleText.contains("line 99"))
        #expect(harness.screenRows.last?.hasPrefix("radar.png") == true)
        bar.progressEnded(activity, outcome: .succeeded)
    }

    @Test func finishPrintsLinesHeldBackByAMaskThatNeverEnded() {
        let harness = ConsoleHarness()
        let log = ScrollingLog(id: "cities", in: Panel(title: "Cities"), presenter: harness.presenter)
        TestLoader(container: log, presenter: harness.presenter).begin(ActivityID.next())
        log.append("Toronto")
        harness.presenter.finish()
        #expect(harness.screenRows == ["Toronto"])
        #expect(harness.terminal.isCursorVisible)
    }

    /// Found by the `console-text` fuzz target: at a width of one column, a word of wide
    /// characters stayed whole, eight columns on a line of one, because no wide character fits
    /// in one column and the cutting stopped there. Each now gets a line of its own.
    @Test func wrapGivesEachWideCharacterALineOfItsOwnWhenTheWidthIsOneColumn() {
        let lines = ConsoleLayout(catalog: .english).wrap("ｆｕｌｌ wide", width: 1)
        #expect(lines == ["ｆ", "ｕ", "ｌ", "ｌ", "w", "i", "d", "e"])
    }

    /// The console-text fuzz target ran at a few hundred inputs a second because wrapping
    /// measured the line again for every word and the rest of a long word again for every line:
    /// time in the square of the length, minutes for a server message of 64 KiB in one word.
    /// Each character is now measured once; the lines are the same.
    @Test func wrapCutsAWordLongerThanTheLineIntoFullLinesAndKeepsTheRestForTheNextWord() {
        let layout = ConsoleLayout(catalog: .english)
        #expect(layout.wrap("abcdefgh ij k", width: 3) == ["abc", "def", "gh", "ij", "k"])
        let lines = layout.wrap(String(repeating: "x", count: 20_000), width: 7)
        #expect(lines.count == 2_858)
        #expect(lines.dropLast().allSatisfy { $0 == "xxxxxxx" } && lines.last == "x")
    }
}
