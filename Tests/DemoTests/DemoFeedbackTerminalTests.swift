import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// The containers and messages of parley-demo as a person sees them in a real terminal (a tmux
/// pane of 100 × 20): a list row, an action line, a refresh header and a scrolling log while a
/// slow forecast loads, the success boxes of `login` and `weather report`, and a bar that
/// leaves nothing behind when the window gets narrower and the terminal reflows it.
@Suite(
    .serialized, .enabled(if: Tmux.path != nil || Tmux.required, "tmux is not installed: run Tools/scripts/setup.sh"))
struct DemoFeedbackTerminalTests {
    /// Runs `arguments` against a backend whose forecast takes 2.5 s; `whileLoading` sees the
    /// pane once `shown` is on it; returns the whole pane, history included, once it exited 0.
    private func forecast(
        _ arguments: [String], shown: @escaping @Sendable (String) -> Bool,
        whileLoading: ([String]) throws -> Void
    ) async throws -> [String] {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        return try await MockServer.withRunning { server in
            server.faults.setDelay(.milliseconds(2500), for: "/weather")
            return try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start(
                        reportingTerminalMode(
                            [demo, "--server", server.baseURL, "weather", "forecast", "Toronto"] + arguments))
                    try await tmux.go()

                    try await waitUntil { try await tmux.capture().contains(where: shown) }
                    try whileLoading(try await tmux.capture())
                    #expect(try await tmux.display("#{cursor_flag}") == "0", "the cursor is hidden while it loads")

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=0"), "\(shown)")
                    #expect(screen.contains("Toronto, Canada"), "\(shown)")
                    #expect(screen.contains(restoredMode), "\(shown)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
                    return screen
                }
            }
        }
    }

    @Test(arguments: [("row", "Toronto  "), ("button", "[ Refresh Toronto ] ")])
    func aRowOrAnActionLineSpinsWhileTheForecastLoads(container: String, row: String) async throws {
        let screen = try await forecast(
            ["--container", container], shown: { $0.hasPrefix(row) && $0.contains("Loading…") },
            whileLoading: { pane in
                #expect(pane.filter { $0.contains("Loading…") }.count == 1, "one row: \(pane)")
            })
        #expect(!screen.contains { $0.contains("Loading…") }, "the row is gone:\n\(screen.joined(separator: "\n"))")
    }

    @Test func aRefreshHeaderSpinsAboveTheListThenTheListIsPrinted() async throws {
        let header = "Refreshing the forecast for Toronto…"
        let screen = try await forecast(
            ["--container", "refresh"], shown: { $0.contains(header) },
            whileLoading: { pane in
                let line = pane.first { $0.contains(header) } ?? ""
                #expect(MaskFrames.isSpinner(line.first), "a spinner before the label: \(line)")
            })
        let shown = screen.joined(separator: "\n")
        #expect(!shown.contains(header), "the header is gone:\n\(shown)")
        let days = screen.filter {
            $0.hasPrefix("  Monday") || $0.hasPrefix("  Tuesday") || $0.hasPrefix("  Wednesday")
        }
        #expect(days.count == 3, "the list of days:\n\(shown)")
    }

    @Test func aScrollingLogHoldsItsLinesWhileItsPanelIsMasked() async throws {
        let screen = try await forecast(
            ["--container", "log"], shown: { $0.hasPrefix("╭─ Toronto") },
            whileLoading: { pane in
                #expect(!pane.contains { $0.contains("Asked for the forecast") }, "held while masked: \(pane)")
            })
        let shown = screen.joined(separator: "\n")
        let asked = try #require(screen.firstIndex(of: "→ Asked for the forecast for Toronto."), "\(shown)")
        let received = try #require(screen.firstIndex(of: "← 3 days for Toronto, Canada."), "\(shown)")
        let result = try #require(screen.firstIndex(of: "Toronto, Canada"), "\(shown)")
        #expect(asked < received && received < result, "\(shown)")
        #expect(!screen.contains { $0.hasPrefix("╭─ Toronto") }, "the panel is gone:\n\(shown)")
    }

    @Test func aLoginEndsWithASuccessBox() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await withTemporaryFolder { folder in
            try await Tmux.withServer(folder: folder) { tmux in
                try await tmux.start(reportingTerminalMode([demo, "login"]))
                try await tmux.go()
                try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                let screen = try await tmux.capture(history: true)
                let shown = screen.joined(separator: "\n")
                #expect(screen.contains("exit=0"), "\(shown)")
                let top = try #require(screen.firstIndex { $0.hasPrefix("╭─ Done ─") }, "\(shown)")
                #expect(screen[top + 1].hasPrefix("│ Logged in."), "\(shown)")
                #expect(screen[top + 2].hasPrefix("╰─"), "\(shown)")
                #expect(screen.contains { $0.hasPrefix("Logged in: ") }, "the token on standard output:\n\(shown)")
                #expect(!shown.contains("Loading…"), "\(shown)")
                #expect(screen.contains(restoredMode), "\(shown)")
            }
        }
    }

    @Test func aReportEndsWithASuccessBoxAfterItsBar() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await withTemporaryFolder { folder in
            let photo = folder + "/sky.jpg"
            try Data(repeating: 7, count: 300_000).write(to: URL(fileURLWithPath: photo))
            try await Tmux.withServer(folder: folder) { tmux in
                try await tmux.start(reportingTerminalMode([demo, "weather", "report", "Toronto", "--photo", photo]))
                try await tmux.go()
                try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                let screen = try await tmux.capture(history: true)
                let shown = screen.joined(separator: "\n")
                #expect(screen.contains("exit=0"), "\(shown)")
                let top = try #require(screen.firstIndex { $0.hasPrefix("╭─ Done ─") }, "\(shown)")
                #expect(screen[top + 1].hasPrefix("│ Your report for Toronto was received. Thank you."), "\(shown)")
                let bar = try #require(screen.firstIndex { $0.hasPrefix("✓ sky.jpg") }, "the finished bar:\n\(shown)")
                #expect(bar < top, "\(shown)")
                #expect(!screen.contains(where: isBarLine), "no bar is left:\n\(shown)")
            }
        }
    }

    @Test func severalDownloadsDrawABarEachWhileTheyRun() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await withTemporaryFolder { folder in
            try await Tmux.withServer(folder: folder) { tmux in
                try await tmux.start(
                    reportingTerminalMode([
                        demo, "downloads", "--count", "3", "--parallel", "2", "--size", "4194304", "--chunk-delay",
                        "20",
                    ]))
                try await tmux.go()
                // Two run at once, the third waits for a slot: two bars on the screen together
                try await waitUntil { try await tmux.capture().filter(isBarLine).count >= 2 }
                try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                let screen = try await tmux.capture(history: true)
                let shown = screen.joined(separator: "\n")
                #expect(screen.contains("exit=0"), "\(shown)")
                for index in 1...3 {
                    #expect(screen.contains { $0.hasPrefix("✓ file-\(index).bin") }, "the finished bar:\n\(shown)")
                    #expect(screen.contains("file-\(index).bin: 4194304 bytes"), "\(shown)")
                }
                #expect(!screen.contains(where: isBarLine), "no bar is left:\n\(shown)")
                #expect(screen.contains(restoredMode), "\(shown)")
            }
        }
    }

    /// tmux reflows the pane's lines when its window gets narrower: the bar drawn 99 columns
    /// wide takes three rows at 40, and the next redraw clears all three.
    ///
    /// tmux keeps the cursor on its row and scrolls what no longer fits into the history, so
    /// ten lines printed first put the bar low enough that its three rows stay on the screen,
    /// under the last of those lines.
    @Test func aNarrowerWindowLeavesNoPieceOfTheWiderBar() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            // 16 MiB at 64 KiB every 40 ms: about 10 s of bar.
            server.faults.setPace(.milliseconds(40), for: "/weather/radar")
            try await withTemporaryFolder { folder in
                let output = folder + "/radar.png"
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start(
                        reportingTerminalMode([
                            "sh", "-c", #"seq 1 10; exec "$0" "$@""#, demo, "--server", server.baseURL, "weather",
                            "radar", "Toronto", "--output", output, "--size", "16777216",
                        ]))
                    try await tmux.go()
                    try await waitUntil {
                        try await tmux.capture().contains { isBarLine($0) && $0.contains("ETA") }
                    }
                    let wide = try await tmux.capture()
                    let drawn = try #require(wide.first { isBarLine($0) && $0.contains("ETA") })
                    try #require(drawn.count > 80, "a bar wider than 80 columns: \(drawn)")

                    try await tmux.run(["resize-window", "-t", "parley", "-x", "40", "-y", "20"])
                    try await waitUntil { try await tmux.display("#{pane_width}") == "40" }
                    // The bar is redrawn within 50 ms of the next progress; give it a few.
                    try await waitUntil {
                        let pane = try await tmux.capture()
                        return pane.contains { isBarLine($0) && $0.count < 40 } && !pane.contains { $0.count >= 40 }
                    }
                    try await Task.sleep(for: .milliseconds(300))
                    let narrow = try await tmux.capture()
                    let shown = narrow.joined(separator: "\n")
                    let bar = try #require(narrow.firstIndex { $0.hasPrefix("radar.png") }, "\(shown)")
                    #expect(bar > 0 && narrow[bar - 1] == "10", "the bar right under the output:\n\(shown)")
                    #expect(narrow[(bar + 1)...].allSatisfy { $0.isEmpty }, "nothing under the bar:\n\(shown)")
                    let above = narrow[..<bar].filter { !$0.isEmpty }
                    #expect(above.allSatisfy { Int($0) != nil }, "no piece of the wider bar:\n\(shown)")

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    #expect(screen.contains("exit=0"), "\(screen.joined(separator: "\n"))")
                }
            }
        }
    }
}

/// The spinner's frames.
private enum MaskFrames {
    static let dots: Set<Character> = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static func isSpinner(_ character: Character?) -> Bool { character.map(dots.contains) ?? false }
}
