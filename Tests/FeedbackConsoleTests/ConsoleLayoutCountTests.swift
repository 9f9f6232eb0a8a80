import Feedback
import FeedbackConsole
import Testing
import Transport

/// How the console draws a batch's count: `7/20` where a transfer has bytes.
@Suite struct ConsoleLayoutCountTests {
    static let layout = ConsoleLayout(catalog: .english)
    static let activity = ActivityID(rawValue: 1)

    /// A scene with one bar labelled `forecasts` at `count`, begun at zero.
    static func scene(_ count: CountProgress?) -> FeedbackScene {
        var scene = FeedbackScene()
        _ = scene.apply(.progressBegan(activity, label: "forecasts", container: Screen().containerInfo), at: .zero)
        if let count { _ = scene.apply(.progressCounted(activity, count: count), at: .zero) }
        return scene
    }

    /// The summary the scene prints when the bar ends after 1.5 s.
    static func summary(_ count: CountProgress, _ outcome: ActivityOutcome) -> FeedbackScene.Output? {
        var scene = scene(count)
        return scene.apply(.progressEnded(activity, outcome: outcome), at: .milliseconds(1500)).first
    }

    @Test func drawsTheCountInsteadOfBytes() throws {
        let lines = Self.layout.liveLines(for: Self.scene(CountProgress(completed: 7, total: 20)), width: 80, tick: 0)
        let line = try #require(lines.first).plainText
        #expect(lines.count == 1)
        #expect(line.hasPrefix("forecasts  ["))
        #expect(line.hasSuffix("]  35%  7/20"))
        #expect(!line.contains("B"), "no byte count: \(line)")
        let filled = line.filter { $0 == "█" }.count
        let empty = line.filter { $0 == "░" }.count
        #expect(filled > 0 && empty > filled, "about a third filled: \(line)")
    }

    @Test func showsTheFailuresAndDropsThemFirstWhenNarrow() throws {
        let scene = Self.scene(CountProgress(completed: 7, failed: 2, total: 20))
        let wide = try #require(Self.layout.liveLines(for: scene, width: 80, tick: 0).first).plainText
        #expect(wide.hasSuffix("]  35%  7/20  2 failed"))
        let narrow = try #require(Self.layout.liveLines(for: scene, width: 40, tick: 0).first).plainText
        #expect(narrow.hasSuffix("]  35%  7/20"))
        #expect(TextWidth.columns(of: narrow) <= 40)
    }

    @Test func aFullCountFillsTheBar() throws {
        let line = try #require(
            Self.layout.liveLines(for: Self.scene(CountProgress(completed: 20, total: 20)), width: 80, tick: 0).first
        ).plainText
        #expect(line.hasSuffix("]  100%  20/20"))
        #expect(!line.contains("░"))
    }

    @Test func thePlainStatusLineSaysHowManyAreDone() throws {
        let transfer = try #require(Self.scene(CountProgress(completed: 7, failed: 1, total: 20)).transfers.first)
        #expect(Self.layout.plainStatus(of: transfer).plainText == "forecasts: 35% 7 of 20 done, 1 failed")
    }

    @Test func theSummariesCountTheMembers() throws {
        let done = try #require(Self.summary(CountProgress(completed: 20, total: 20), .succeeded))
        #expect(
            Self.layout.permanentLines(for: done, width: 80).map(\.plainText) == ["✓ forecasts  20 of 20 done in 1.5 s"]
        )
        #expect(Self.layout.plainLines(for: done).map(\.plainText) == ["forecasts: 20 of 20 done in 1.5 s"])

        let failed = try #require(Self.summary(CountProgress(completed: 7, failed: 1, total: 20), .failed))
        #expect(
            Self.layout.plainLines(for: failed).map(\.plainText)
                == ["forecasts: failed after 1.5 s, 7 of 20 done, 1 failed"])
        let cancelled = try #require(Self.summary(CountProgress(completed: 3, total: 20), .cancelled))
        #expect(
            Self.layout.permanentLines(for: cancelled, width: 80).map(\.plainText)
                == ["✗ forecasts  cancelled after 1.5 s, 3 of 20 done"])
    }

    @Test func aBarWithoutACountYetIsASpinner() throws {
        let line = try #require(Self.layout.liveLines(for: Self.scene(nil), width: 80, tick: 0).first).plainText
        #expect(line.hasPrefix("forecasts  "))
        #expect(!line.contains("/"))
    }

    @Test func thePresenterDrawsTheCountInTheTerminal() {
        let harness = ConsoleHarness(columns: 60)
        let bar = TestBar(progressLabel: "forecasts", presenter: harness.presenter)
        bar.progressBegan(Self.activity)
        bar.progressCounted(Self.activity, count: CountProgress(completed: 7, total: 20))
        harness.refresh()
        #expect(harness.screenRows.first?.hasSuffix("35%  7/20") == true, "\(harness.screenRows)")
        bar.progressEnded(Self.activity, outcome: .succeeded)
        #expect(harness.screenRows.first?.hasPrefix("✓ forecasts  7 of 20 done in ") == true, "\(harness.screenRows)")
    }
}
