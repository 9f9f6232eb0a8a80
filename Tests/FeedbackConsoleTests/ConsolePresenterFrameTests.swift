import Feedback
import FeedbackConsole
import FeedbackTesting
import Mapping
import Testing
import Transport

/// What a person sees in a terminal, frame by frame, through the virtual terminal.
@Suite struct ConsolePresenterFrameTests {
    @Test func stackedMasksOnOneContainerShowTheNewestAndClearWithTheLast() {
        let harness = ConsoleHarness()
        let panel = Panel(title: "Toronto")
        let first = TestLoader(
            container: panel, chosenMask: SpinnerMask(text: "Loading forecast…"), presenter: harness.presenter)
        let second = TestLoader(
            container: panel, chosenMask: SpinnerMask(text: "Loading radar…"), presenter: harness.presenter)
        let (a, b) = (ActivityID.next(), ActivityID.next())

        first.begin(a)
        second.begin(b)
        harness.refresh()
        // One panel, the newest mask, and the count of requests behind it.
        let frame = harness.screenRows
        #expect(frame.count == 3, "\(frame)")
        #expect(frame[0].hasPrefix("╭─ Toronto ─"))
        #expect(frame[1].contains("Loading radar…"))
        #expect(frame[1].contains("(2 requests)"))
        #expect(!harness.terminal.isCursorVisible)

        second.end(b, outcome: .succeeded)
        harness.refresh()
        #expect(harness.screenRows[1].contains("Loading forecast…"))
        #expect(!harness.screenRows[1].contains("requests"))

        first.end(a, outcome: .succeeded)
        // Cleared at once, without waiting for a redraw, and the cursor is back.
        #expect(harness.screenRows.isEmpty)
        #expect(harness.terminal.isCursorVisible)
    }

    @Test func masksOnTwoContainersAreDrawnApart() {
        let harness = ConsoleHarness()
        let toronto = TestLoader(container: ListRow(label: "Toronto"), presenter: harness.presenter)
        let paris = TestLoader(container: ListRow(label: "Paris"), presenter: harness.presenter)
        let (a, b) = (ActivityID.next(), ActivityID.next())
        toronto.begin(a)
        paris.begin(b)
        harness.refresh()
        #expect(harness.screenRows.count == 2)
        #expect(harness.screenRows[0].hasPrefix("Toronto  "))
        #expect(harness.screenRows[1].hasPrefix("Paris  "))

        toronto.end(a, outcome: .failed)
        harness.refresh()
        #expect(harness.screenRows.count == 1)
        #expect(harness.screenRows[0].hasPrefix("Paris  "))
        paris.end(b, outcome: .succeeded)
        #expect(harness.screenRows.isEmpty)
    }

    @Test func aHUDMaskIsABoxCentredOnTheScreen() {
        let harness = ConsoleHarness(columns: 60)
        let loader = TestLoader(
            container: Screen(), chosenMask: HUDMask(text: "Signing in…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        let rows = harness.terminal.lines.filter { !$0.isEmpty }
        #expect(rows.count == 3)
        let margin = rows.first?.prefix { $0 == " " }.count ?? 0
        #expect(margin > 10, "the box is centred: \(rows)")
        #expect(rows[1].contains("Signing in…"))
        loader.end(activity, outcome: .succeeded)
    }

    @Test func anActionLineIsShownDisabledWhileItsRequestRuns() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: ActionLine(label: "Refresh"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        #expect(harness.screenRows == ["[ Refresh ] ⠋ Loading…"])
        // The button's label is drawn dimmed: disabled.
        #expect(harness.terminal.cell(row: 0, column: 2)?.attributes.dim == true)
        loader.end(activity, outcome: .succeeded)
    }

    @Test func aProgressBarMovesFrameByFrameAndIsFinalisedWhenDone() {
        let harness = ConsoleHarness(columns: 100)
        let bar = TestBar(progressLabel: "radar.png", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        var frames: [String] = []
        for completed in stride(from: Int64(0), through: 1_000_000, by: 250_000) {
            harness.advance(.milliseconds(500))
            bar.progressChanged(
                activity, direction: .download,
                progress: TransferProgress(
                    completed: completed, total: 1_000_000, bytesPerSecond: 500_000, isFinal: false))
            harness.refresh()
            frames.append(harness.screenRows.first ?? "")
        }
        #expect(frames[0].hasPrefix("radar.png  ["))
        #expect(frames[0].contains(" 0% "))
        #expect(frames[2].contains(" 50% "))
        #expect(frames[2].contains("500 kB / 1.00 MB"))
        #expect(frames[2].contains("ETA 1.0 s"))
        #expect(frames[4].contains(" 100% "))
        // The bar fills: more filled cells in each frame.
        let filled = frames.map { $0.filter { $0 == "█" }.count }
        #expect(filled == filled.sorted() && filled.first == 0 && (filled.last ?? 0) > 20, "\(filled)")

        bar.progressEnded(activity, outcome: .succeeded)
        // The live bar gives way to one finished line, kept for good.
        #expect(harness.screenRows.count == 1)
        #expect(harness.screenRows[0].hasPrefix("✓ radar.png  done, 1.00 MB in "))
        #expect(harness.terminal.isCursorVisible)
    }

    @Test func aTransferOfUnknownSizeShowsASpinnerAndAByteCount() {
        let harness = ConsoleHarness()
        let bar = TestBar(progressLabel: "stream", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        bar.progressChanged(
            activity, direction: .download,
            progress: TransferProgress(completed: 12_300_000, total: nil, bytesPerSecond: 2_000_000, isFinal: false))
        harness.refresh()
        #expect(harness.screenRows == ["stream  ⠋  12.3 MB  2.00 MB/s"])
        bar.progressEnded(activity, outcome: .cancelled)
    }

    @Test func concurrentTransfersAreSeveralBars() {
        let harness = ConsoleHarness()
        let activities = (0..<3).map { _ in ActivityID.next() }
        for (index, activity) in activities.enumerated() {
            let bar = TestBar(progressLabel: "file-\(index)", presenter: harness.presenter)
            bar.progressBegan(activity)
            bar.progressChanged(
                activity, direction: .download,
                progress: TransferProgress(
                    completed: Int64(index) * 100, total: 300, bytesPerSecond: 100, isFinal: false))
        }
        harness.refresh()
        #expect(harness.screenRows.map { String($0.prefix(6)) } == ["file-0", "file-1", "file-2"])
    }

    @Test func aWarningAfterABusinessErrorIsABoxWithTheServersMessage() {
        let harness = ConsoleHarness(columns: 60)
        let warner = TestWarner(presenter: harness.presenter)
        warner.warn(BusinessError(code: 404, serverMessage: "Unknown city: Atlantis"))
        let rows = harness.screenRows
        #expect(rows.count == 3, "\(rows)")
        #expect(rows[0].hasPrefix("╭─ Warning ─"))
        #expect(rows[1] == "│ Unknown city: Atlantis │")
        #expect(rows[2].hasPrefix("╰─"))
        #expect(harness.terminal.cell(row: 1, column: 2)?.attributes.foreground == nil)
        #expect(harness.terminal.cell(row: 0, column: 0)?.attributes.foreground == 33)
    }

    @Test func aWarningIsPrintedAboveTheLiveAreaWhichIsDrawnAgainBelowIt() {
        let harness = ConsoleHarness(columns: 60)
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        TestWarner(presenter: harness.presenter).warn(
            TransportError(.connectionRefused, message: "Connection refused by 127.0.0.1:9."))
        let rows = harness.screenRows
        #expect(rows.first?.hasPrefix("╭─ Warning") == true)
        #expect(rows.contains { $0.contains("The server could not be reached.") })
        #expect(rows.contains { $0.contains("Connection refused by 127.0.0.1:9.") })
        #expect(rows.last == "⠋ Loading…")
        loader.end(activity, outcome: .failed)
        #expect(harness.screenRows.last?.hasPrefix("╰─") == true)
    }

    @Test func rowsAreCutToFortyColumnsWithAnEllipsis() {
        let harness = ConsoleHarness(columns: 40)
        let loader = TestLoader(
            container: Panel(title: "A panel whose title is far too long for a narrow terminal"),
            chosenMask: SpinnerMask(text: "Loading the forecast for every city we know of…"),
            presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        for row in harness.terminal.lines where !row.isEmpty {
            #expect(TextWidth.columns(of: row) <= 39, "\(row)")
        }
        #expect(harness.screenRows[1].contains("…"))
        // Nothing wrapped onto a fourth row.
        #expect(harness.screenRows.count == 3)
        loader.end(activity, outcome: .succeeded)
    }

    @Test func wideCharactersTakeTwoColumnsAndKeepTheBoxAligned() {
        let harness = ConsoleHarness(columns: 40)
        let loader = TestLoader(
            container: Panel(title: "多伦多 🌧"), chosenMask: SpinnerMask(text: "加载中…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        let rows = harness.screenRows
        #expect(rows.count == 3)
        // Every row of the box ends in the same column.
        let widths = rows.map { TextWidth.columns(of: $0) }
        #expect(Set(widths).count == 1, "\(rows) \(widths)")
        #expect(rows[0].contains("多伦多"))
        loader.end(activity, outcome: .succeeded)
    }

    @Test func aResizeRedrawsAtTheNewWidth() {
        let harness = ConsoleHarness(columns: 80)
        let bar = TestBar(progressLabel: "radar.png", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        bar.progressChanged(
            activity, direction: .download,
            progress: TransferProgress(completed: 10, total: 100, bytesPerSecond: 10, isFinal: false))
        harness.refresh()
        let wide = harness.screenRows[0]
        harness.terminal.resize(columns: 40, rows: 24)
        harness.refresh()
        let narrow = harness.terminal.lines.filter { !$0.isEmpty }.last ?? ""
        #expect(TextWidth.columns(of: wide) > 40)
        #expect(TextWidth.columns(of: narrow) <= 39)
        #expect(narrow.hasPrefix("radar.png"))
        bar.progressEnded(activity, outcome: .succeeded)
    }

    @Test func onlyWhatChangedIsWritten() {
        let harness = ConsoleHarness()
        let bar = TestBar(progressLabel: "a", presenter: harness.presenter)
        let other = TestBar(progressLabel: "b", presenter: harness.presenter)
        let (a, b) = (ActivityID.next(), ActivityID.next())
        bar.progressBegan(a)
        other.progressBegan(b)
        for activity in [a, b] {
            harness.presenter.present(
                .progressChanged(
                    activity, direction: .download,
                    progress: TransferProgress(completed: 10, total: 100, bytesPerSecond: 10, isFinal: false)))
        }
        harness.refresh()
        let redraws = harness.presenter.redrawCount
        let before = harness.byteCount

        // Nothing moved: no bytes at all.
        harness.refresh()
        #expect(harness.presenter.redrawCount == redraws)
        #expect(harness.byteCount == before)

        // One bar moved: its row is rewritten, the other is only stepped over.
        harness.presenter.present(
            .progressChanged(
                b, direction: .download,
                progress: TransferProgress(completed: 60, total: 100, bytesPerSecond: 10, isFinal: false)))
        harness.refresh()
        let lastWrite = harness.bytes.split(separator: "\u{1B}[2A").last.map(String.init) ?? ""
        #expect(lastWrite.hasPrefix("\n"), "the first row is stepped over: \(lastWrite.debugDescription)")
        #expect(lastWrite.contains("60%"))
        #expect(!lastWrite.contains("10%"))
        bar.progressEnded(a, outcome: .succeeded)
        other.progressEnded(b, outcome: .succeeded)
    }

    @Test func aScrollingLogHoldsItsLinesWhileItsRegionIsMasked() {
        let harness = ConsoleHarness()
        let panel = Panel(title: "Cities")
        let log = ScrollingLog(id: "cities", in: panel, presenter: harness.presenter)
        let loader = TestLoader(container: log, presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        log.append("Toronto")
        log.append("多伦多")
        harness.refresh()
        // The mask went to the panel, and no line is printed yet.
        #expect(harness.screenRows.first?.hasPrefix("╭─ Cities") == true)
        #expect(!harness.screenRows.contains("Toronto"))

        loader.end(activity, outcome: .succeeded)
        #expect(harness.screenRows == ["Toronto", "多伦多"])
    }

    @Test func controlCharactersFromTheServerAreNeverWritten() {
        let harness = ConsoleHarness()
        TestWarner(presenter: harness.presenter).warn(
            BusinessError(code: 500, serverMessage: "bad\u{1B}]0;owned\u{7}\u{1B}[2Jnews"))
        #expect(harness.terminal.unsupportedSequences.isEmpty)
        #expect(harness.screenRows.contains { $0.contains("bad�]0;owned��[2Jnews") })
    }

    @Test func finishClearsTheLiveAreaAndShowsTheCursor() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        loader.begin(ActivityID.next())
        harness.refresh()
        #expect(!harness.terminal.isCursorVisible)
        harness.presenter.finish()
        #expect(harness.terminal.isCursorVisible)
        #expect(harness.screenRows.isEmpty)
    }

    @Test func aResultPrintedWhileRequestsRunLandsAboveTheLiveArea() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        harness.presenter.withLiveAreaCleared { harness.terminal.feed("result\n") }
        #expect(harness.screenRows == ["result", "⠋ Loading…"])
        loader.end(activity, outcome: .succeeded)
        #expect(harness.screenRows == ["result"])
    }

    @Test func retriesAreShownBesideTheMask() {
        let harness = ConsoleHarness(columns: 100)
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        loader.maskRetrying(
            activity,
            notice: RetryNotice(
                attempt: 2, maximumAttempts: 4, reason: "HTTP 503", delay: .seconds(2), serverAsked: true))
        harness.refresh()
        #expect(harness.screenRows == ["⠋ Loading…  ↻ Retrying in 2.0 s, the server asked; attempt 2 of 4."])
        loader.end(activity, outcome: .succeeded)
    }

    @Test func aRefreshHeaderSpinsAboveTheListUntilItsRequestEnds() {
        let harness = ConsoleHarness()
        harness.terminal.feed("  Toronto  Canada\n")
        let loader = TestLoader(
            container: RefreshHeader(label: "Refreshing the cities…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        #expect(harness.screenRows == ["  Toronto  Canada", "⠋ Refreshing the cities…"])
        // The spinner is the accent colour, the label dimmed.
        #expect(harness.terminal.cell(row: 1, column: 0)?.attributes.foreground == 36)
        #expect(harness.terminal.cell(row: 1, column: 2)?.attributes.dim == true)

        harness.advance(.milliseconds(100))
        loader.maskRetrying(
            activity, notice: RetryNotice(attempt: 2, maximumAttempts: 3, reason: "HTTP 503", delay: .seconds(1)))
        harness.refresh()
        #expect(harness.screenRows.last == "⠙ Refreshing the cities…  ↻ Retrying in 1.0 s; attempt 2 of 3.")

        loader.end(activity, outcome: .succeeded)
        #expect(harness.screenRows == ["  Toronto  Canada"])
        #expect(harness.terminal.isCursorVisible)
    }

    @Test func aRefreshHeaderWithoutALabelSaysRefreshing() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: RefreshHeader(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        #expect(harness.screenRows == ["⠋ Refreshing…"])
        loader.end(activity, outcome: .failed)
        #expect(harness.screenRows.isEmpty)
    }

    @Test func aSuccessMessageIsABoxTitledDoneAboveTheLiveArea() {
        let harness = ConsoleHarness()
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        Alert(successMessage: "Logged in.", presenter: harness.presenter, catalog: .english).inform("token")
        let rows = harness.screenRows
        #expect(rows.count == 4, "\(rows)")
        #expect(rows[0].hasPrefix("╭─ Done ─"))
        #expect(rows[1].hasPrefix("│ Logged in."))
        #expect(rows[2].hasPrefix("╰─"))
        #expect(rows[3] == "⠋ Loading…")
        // Drawn in the success colour.
        #expect(harness.terminal.cell(row: 0, column: 0)?.attributes.foreground == 32)
        loader.end(activity, outcome: .succeeded)
        #expect(harness.screenRows.count == 3)
    }

    @Test func aSuccessMessageInChineseIsTitledInChinese() {
        let harness = ConsoleHarness(catalog: .simplifiedChinese)
        Alert(successMessage: "已登录。", presenter: harness.presenter, catalog: .simplifiedChinese).inform(1)
        let rows = harness.screenRows
        #expect(rows.first?.hasPrefix("╭─ 完成 ─") == true, "\(rows)")
        #expect(rows.dropFirst().first?.hasPrefix("│ 已登录。") == true, "\(rows)")
        // Every row of the box ends in the same column.
        #expect(Set(rows.map { TextWidth.columns(of: $0) }).count == 1, "\(rows)")
    }

    @Test func theLiveAreaSpeaksTheCatalogsLanguage() {
        let harness = ConsoleHarness(columns: 100, rows: 5, catalog: .simplifiedChinese)
        let panel = Panel(title: "多伦多")
        let loaders = (0..<2).map { _ in TestLoader(container: panel, presenter: harness.presenter) }
        let bars = (0..<4).map { TestBar(progressLabel: "雷达\($0).png", presenter: harness.presenter) }
        let loads = loaders.map { _ in ActivityID.next() }
        let transfers = bars.map { _ in ActivityID.next() }
        for (loader, activity) in zip(loaders, loads) { loader.begin(activity) }
        for (bar, activity) in zip(bars, transfers) {
            bar.progressBegan(activity)
            bar.progressChanged(
                activity, direction: .download,
                progress: TransferProgress(
                    completed: 500_000, total: 1_000_000, bytesPerSecond: 250_000, isFinal: false))
        }
        harness.refresh()
        let rows = harness.screenRows
        #expect(rows.contains { $0.contains("（2 个请求）") }, "\(rows)")
        #expect(!rows.contains { $0.contains("requests") })
        // Four rows fit: the panel's three and a line that counts the rest.
        #expect(rows.count == 4, "\(rows)")
        #expect(rows.last == "… 另有 4 行", "\(rows)")

        for (bar, activity) in zip(bars, transfers) { bar.progressEnded(activity, outcome: .succeeded) }
        for (loader, activity) in zip(loaders, loads) { loader.end(activity, outcome: .succeeded) }
        let summaries = harness.terminal.visibleText
        #expect(summaries.contains("✓ 雷达0.png  完成，500 kB，用时 0.0 s"), "\(summaries)")
    }

    @Test func aBarsTimeLeftIsInTheCatalogsLanguage() {
        let harness = ConsoleHarness(columns: 100, catalog: .simplifiedChinese)
        let bar = TestBar(progressLabel: "雷达.png", presenter: harness.presenter)
        let activity = ActivityID.next()
        bar.progressBegan(activity)
        bar.progressChanged(
            activity, direction: .download,
            progress: TransferProgress(completed: 500_000, total: 1_000_000, bytesPerSecond: 250_000, isFinal: false))
        harness.refresh()
        #expect(harness.screenRows.first?.hasSuffix("250 kB/s  剩余 2.0 s") == true, "\(harness.screenRows)")
        bar.progressEnded(activity, outcome: .cancelled)
    }
}
