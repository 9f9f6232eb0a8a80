import Feedback
import FeedbackConsole
import FeedbackTesting
import Mapping
import Testing
import Transport

/// Where nothing may be redrawn, the bytes themselves are the contract.
@Suite struct ConsolePresenterPlainTests {
    /// The same activity run through a presenter in `environment`.
    private func run(
        isTerminal: Bool, environment: [String: String], catalog: MessageCatalog = .english, city: String = "Toronto",
        mask: SpinnerMask = SpinnerMask(), file: String = "radar.png", serverMessage: String = "Unknown city: Atlantis"
    ) -> String {
        let harness = ConsoleHarness(isTerminal: isTerminal, environment: environment, catalog: catalog)
        let loader = TestLoader(container: Panel(title: city), chosenMask: mask, presenter: harness.presenter)
        let bar = TestBar(progressLabel: file, presenter: harness.presenter)
        let (load, transfer) = (ActivityID.next(), ActivityID.next())
        loader.begin(load)
        bar.progressBegan(transfer)
        for step in 1...5 {
            harness.advance(.milliseconds(500))
            bar.progressChanged(
                transfer, direction: .download,
                progress: TransferProgress(
                    completed: Int64(step) * 200_000, total: 1_000_000, bytesPerSecond: 400_000, isFinal: step == 5))
            harness.refresh()
        }
        bar.progressEnded(transfer, outcome: .succeeded)
        TestWarner(presenter: harness.presenter).warn(BusinessError(code: 404, serverMessage: serverMessage))
        harness.advance(.milliseconds(300))
        loader.end(load, outcome: .failed)
        return harness.bytes
    }

    private static let expected = """
        Loading (Toronto): running for 2.0 s
        radar.png: 80% 800 kB of 1.00 MB, 400 kB/s, ETA 0.5 s
        radar.png: done, 1.00 MB in 2.5 s, 400 kB/s
        Warning: Unknown city: Atlantis
        Loading (Toronto): failed after 2.8 s

        """

    @Test(
        "plain lines, byte for byte",
        arguments: [
            (false, ["TERM": "xterm"]),
            (true, ["TERM": "dumb"]),
            (true, ["TERM": "xterm", "CI": "true"]),
            (false, ["TERM": "xterm", "NO_COLOR": "1"]),
        ])
    func withoutATerminalOnlyPlainLinesAreWritten(isTerminal: Bool, environment: [String: String]) {
        let bytes = run(isTerminal: isTerminal, environment: environment)
        #expect(bytes == Self.expected)
        #expect(!bytes.contains("\u{1B}"))
        #expect(!bytes.contains("\r"))
    }

    @Test func forceColorColoursPlainLinesWithoutMovingTheCursor() {
        let bytes = run(isTerminal: false, environment: ["FORCE_COLOR": "1"])
        #expect(bytes.contains("\u{1B}[33mWarning: \u{1B}[0mUnknown city: Atlantis\n"))
        #expect(bytes.contains("\u{1B}[31mLoading (Toronto): failed after 2.8 s\u{1B}[0m\n"))
        // Colour codes only: no cursor movement, erasing or carriage return.
        let withoutColour = bytes.replacing(#/\u{1B}\[[0-9;]*m/#, with: "")
        #expect(withoutColour == Self.expected)
    }

    @Test func noColorInATerminalDrawsWithoutColourCodes() {
        let harness = ConsoleHarness(environment: ["TERM": "xterm", "NO_COLOR": "1"])
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.refresh()
        TestWarner(presenter: harness.presenter).warn(BusinessError(code: 404, serverMessage: "Unknown city"))
        loader.end(activity, outcome: .failed)
        #expect(harness.bytes.contains("\u{1B}[?25l"))
        #expect(harness.bytes.firstMatch(of: #/\u{1B}\[[0-9;]*m/#) == nil)
        #expect(!harness.terminal.sawColor)
        #expect(harness.screenRows.contains { $0.hasPrefix("│ Unknown city ") && $0.hasSuffix("│") })
    }

    @Test func quickRequestsPrintOnlyTheirSummary() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:])
        let loader = TestLoader(
            container: Screen(), chosenMask: SpinnerMask(text: "Fetching time…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.advance(.milliseconds(120))
        harness.refresh()
        loader.end(activity, outcome: .succeeded)
        #expect(harness.bytes == "Fetching time: done in 0.1 s\n")
    }

    @Test func statusLinesComeAtMostEveryTwoSeconds() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:])
        let loader = TestLoader(container: Screen(), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        for _ in 0..<50 {
            harness.advance(.milliseconds(100))
            harness.refresh()
        }
        let lines = harness.bytes.split(separator: "\n")
        #expect(lines == ["Loading: running for 2.0 s", "Loading: running for 4.0 s"])
        loader.end(activity, outcome: .cancelled)
    }

    /// Every word the console puts into a line comes from the catalog: with the Chinese one
    /// (and Chinese texts of the caller's own), whole lines are Chinese.
    @Test func theChineseCatalogGivesWholeChineseLines() {
        let bytes = run(
            isTerminal: false, environment: [:], catalog: .simplifiedChinese, city: "多伦多",
            mask: SpinnerMask(text: "正在加载…"), file: "雷达.png", serverMessage: "未知城市：亚特兰蒂斯")
        #expect(
            bytes == """
                正在加载 (多伦多): 已运行 2.0 s
                雷达.png: 80% 800 kB，共 1.00 MB，400 kB/s，剩余 0.5 s
                雷达.png: 完成，1.00 MB，用时 2.5 s，400 kB/s
                警告: 未知城市：亚特兰蒂斯
                正在加载 (多伦多): 2.8 s 后失败

                """)
    }

    @Test func aCancelledBatchAndAWaitingTransferAreSaidInChinese() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:], catalog: .simplifiedChinese)
        let batch = TestBar(progressLabel: "天气", presenter: harness.presenter)
        let download = TestBar(progressLabel: "雷达.png", presenter: harness.presenter)
        let loader = TestLoader(container: Screen(), chosenMask: SpinnerMask(text: ""), presenter: harness.presenter)
        let (counted, waiting, load) = (ActivityID.next(), ActivityID.next(), ActivityID.next())
        batch.progressBegan(counted)
        download.progressBegan(waiting)
        loader.begin(load)
        batch.progressCounted(counted, count: CountProgress(completed: 7, failed: 1, total: 20))
        harness.advance(.seconds(2))
        harness.refresh()
        batch.progressEnded(counted, outcome: .cancelled)
        download.progressEnded(waiting, outcome: .failed)
        loader.end(load, outcome: .succeeded)
        #expect(
            harness.bytes == """
                请求: 已运行 2.0 s
                天气: 35% 已完成 7/20，1 个失败
                雷达.png: 等待中
                天气: 2.0 s 后已取消，已完成 7/20，1 个失败
                雷达.png: 2.0 s 后失败
                请求: 完成，用时 2.0 s

                """)
    }

    /// A catalog made before the console's phrases existed still gives sentences, in English,
    /// never a key's name.
    @Test func aCatalogWithoutTheConsolesPhrasesFallsBackToEnglish() {
        let old = MessageCatalog(languageCode: "fr", entries: [.done: "terminé"])
        let harness = ConsoleHarness(isTerminal: false, environment: [:], catalog: old)
        let loader = TestLoader(
            container: Screen(), chosenMask: SpinnerMask(text: "Chargement…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.advance(.milliseconds(400))
        loader.end(activity, outcome: .succeeded)
        #expect(harness.bytes == "Chargement: terminé in 0.4 s\n")
    }

    /// As the live area shows it: by the header's label, not the mask's text.
    @Test func aRefreshHeaderIsNamedByItsLabel() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:])
        let loader = TestLoader(
            container: RefreshHeader(label: "Refreshing the cities…"), presenter: harness.presenter)
        let activity = ActivityID.next()
        loader.begin(activity)
        harness.advance(.milliseconds(2000))
        harness.refresh()
        harness.advance(.milliseconds(300))
        loader.end(activity, outcome: .succeeded)
        #expect(
            harness.bytes == """
                Refreshing the cities: running for 2.0 s
                Refreshing the cities: done in 2.3 s

                """)
    }

    @Test func theChineseCatalogSpeaksChinese() {
        let harness = ConsoleHarness(isTerminal: false, environment: [:], catalog: .simplifiedChinese)
        let warner = TestWarner(presenter: harness.presenter)
        warner.show(FeedbackMessage(severity: .warning, text: "城市未知"))
        #expect(harness.bytes == "警告: 城市未知\n")
    }
}
