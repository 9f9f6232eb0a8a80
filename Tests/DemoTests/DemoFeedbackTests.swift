import Foundation
import TestSupport
import Testing

/// The feedback parley-demo shows beside its results, where nothing may be redrawn (standard
/// error is a pipe): the refresh header and the scrolling log of `weather forecast
/// --container`, and the success messages of `login` and `weather report`, each as plain lines
/// without an escape sequence, in English and in Chinese.
@Suite(.serialized) struct DemoFeedbackTests {
    @Test func theLogsLinesComeAfterThePanelsMaskEndsThenTheForecast() async throws {
        let run = try await runDemo(["weather", "forecast", "Toronto", "--container", "log"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Toronto, Canada\n"))
        let lines = run.standardError.split(separator: "\n").map(String.init)
        let summary = try #require(lines.firstIndex { $0.hasPrefix("Loading (Toronto): done in ") }, "\(lines)")
        let asked = try #require(lines.firstIndex(of: "→ Asked for the forecast for Toronto."), "\(lines)")
        let received = try #require(lines.firstIndex(of: "← 3 days for Toronto, Canada."), "\(lines)")
        #expect(summary < asked && asked < received, "held until the mask ended, in order: \(lines)")
        #expect(!run.standardError.contains("\u{1B}"))
    }

    @Test func theRefreshHeaderIsNamedByItsLabel() async throws {
        let run = try await runDemo(["weather", "forecast", "Toronto", "--container", "refresh"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Toronto, Canada\n"))
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("Refreshing the forecast for Toronto: done in ") }, "\(lines)")
        #expect(!run.standardError.contains("\u{1B}"))
    }

    @Test func aLoginSaysItSucceeded() async throws {
        let run = try await runDemo(["login"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Logged in: "))
        #expect(run.standardError.split(separator: "\n").contains("Done: Logged in."), "\(run.standardError)")
        #expect(!run.standardError.contains("\u{1B}"))
    }

    @Test func aReportSaysItWasReceived() async throws {
        try await withTemporaryFolder { folder in
            let photo = folder + "/sky.jpg"
            try Data(repeating: 7, count: 50_000).write(to: URL(fileURLWithPath: photo))

            let run = try await runDemo(["weather", "report", "Toronto", "--photo", photo])

            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.hasPrefix("Report "))
            let lines = run.standardError.split(separator: "\n")
            #expect(lines.contains("Done: Your report for Toronto was received. Thank you."), "\(lines)")
            #expect(!run.standardError.contains("\u{1B}"))
        }
    }

    /// With `LANG=zh_CN.UTF-8` the console's own words and the demo's sentences are Chinese:
    /// the refresh header's summary is a Chinese line from end to end.
    @Test func theChineseCatalogGivesWholeChineseLines() async throws {
        let chinese = ["LANG": "zh_CN.UTF-8"]
        let refresh = try await runDemo(
            ["weather", "forecast", "北京", "--container", "refresh"], environment: chinese)
        #expect(refresh.status == 0, "\(refresh.standardError)")
        let lines = refresh.standardError.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.wholeMatch(of: #/正在刷新北京的天气预报: 完成，用时 [0-9.]+ s/#) != nil }, "\(lines)")

        let log = try await runDemo(["weather", "forecast", "北京", "--container", "log"], environment: chinese)
        #expect(log.status == 0, "\(log.standardError)")
        #expect(log.standardError.contains("→ 已请求北京的天气预报。\n← 北京, 中国：3 天的预报。\n"), "\(log.standardError)")

        let login = try await runDemo(["login"], environment: chinese)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(login.standardError.split(separator: "\n").contains("完成: 已登录。"), "\(login.standardError)")
    }
}
