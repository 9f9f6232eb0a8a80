import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// parley-demo as a person sees it: the built binary in a real pseudo-terminal (a tmux pane of
/// 100 × 20), against an in-process backend whose faults make the feedback last long enough
/// to be seen.
@Suite(
    .serialized, .enabled(if: Tmux.path != nil || Tmux.required, "tmux is not installed: run Tools/scripts/setup.sh"))
struct DemoTerminalTests {
    @Test func masksThePanelWithAHUDWhileTheForecastLoadsThenPrintsIt() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            server.faults.setDelay(.milliseconds(2500), for: "/weather")
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start(
                        reportingTerminalMode([
                            demo, "--server", server.baseURL, "weather", "forecast", "Toronto", "--mask", "hud",
                        ]))
                    try await tmux.go()

                    try await waitUntil {
                        try await tmux.capture().contains { $0.contains("Loading the forecast for Toronto…") }
                    }
                    let masked = try await tmux.capture()
                    #expect(masked.contains { $0.contains("Toronto") && !$0.contains("Loading") }, "the panel's title")
                    #expect(try await tmux.display("#{cursor_flag}") == "0", "the cursor is hidden under the mask")

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=0"), "\(shown)")
                    #expect(screen.contains("Toronto, Canada"), "\(shown)")
                    #expect(!screen.contains { $0.contains("Loading the forecast") }, "the mask is gone:\n\(shown)")
                    #expect(screen.contains(restoredMode), "\(shown)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
                }
            }
        }
    }

    @Test func ctrlCDuringTheRadarDownloadExits130KeepsThePartialAndTheNextRunResumes() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            // 16 MiB at 64 KiB every 40 ms: about 10 s, far longer than it takes to press Ctrl-C.
            server.faults.setPace(.milliseconds(40), for: "/weather/radar")
            try await withTemporaryFolder { folder in
                let output = folder + "/radar.png"
                let arguments = ["--server", server.baseURL, "weather", "radar", "Toronto", "--output", output]
                try await Tmux.withServer(folder: folder) { tmux in
                    // Not wrapped in a shell that reports the terminal's mode: Ctrl-C reaches the
                    // whole foreground group, and that shell would end with it.
                    try await tmux.start([demo] + arguments + ["--size", "16777216"])
                    try await tmux.go()

                    try await waitUntil {
                        try await tmux.capture().contains(where: isBarLine) && fileSize(output + ".partial") > 0
                    }
                    try await tmux.sendKeys("C-c")
                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }

                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=130"), "\(shown)")
                    #expect(shown.contains("interrupted"), "\(shown)")
                    #expect(shown.contains("run the same command again to resume"), "\(shown)")
                    #expect(!screen.contains(where: isBarLine), "the bar was cleared:\n\(shown)")
                    let interrupted = try #require(screen.firstIndex { $0.hasPrefix("parley-demo: interrupted.") })
                    let cancelled = try #require(
                        screen.firstIndex { $0.contains("radar.png") && $0.contains("cancelled") })
                    #expect(cancelled < interrupted, "the last word is the note:\n\(shown)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
                    #expect(fileSize(output + ".partial") > 0)
                    #expect(!FileManager.default.fileExists(atPath: output))
                }

                // The next run continues from the partial, at full speed.
                server.faults.setPace(.zero, for: "/weather/radar")
                let kept = fileSize(output + ".partial")
                let run = try await runDemo(arguments + ["--size", "16777216", "--json"])
                #expect(run.status == 0, "\(run.standardError)")
                let summary = try #require(try run.json() as? [String: Any])
                #expect((summary["resumedFrom"] as? Int ?? 0) >= kept)
                #expect(summary["bytes"] as? Int == 16_777_216)
                #expect(fileSize(output) == 16_777_216)
            }
        }
    }

    /// With `--server`, no embedded backend runs, and the console's handler catches `SIGPIPE`;
    /// without it, the backend's SwiftNIO ignores `SIGPIPE`, and the write's `EPIPE` alone ends
    /// the process. Either way the bar is cleared and the cursor shown before the end.
    @Test(arguments: [false, true])
    func aReaderThatGoesAwayEndsTheFetchWith141AndTheTerminalRestored(namingTheServer: Bool) async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            // 16 MiB at 64 KiB every 40 ms: the bar is drawn long before the body ends.
            server.faults.setPace(.milliseconds(40), for: "/weather/radar")
            try await withTemporaryFolder { folder in
                let gate = folder + "/gate"
                try #require(mkfifo(gate, 0o600) == 0)
                let url = server.url("/weather/radar?city=Toronto&size=16777216")
                // `parley-demo fetch URL | head -c 10`, with a reader that then waits at the gate
                // (the pipe fills, and the bar stays on the screen) before going away.
                let script = #""$0" "$@" | { head -c 10 >/dev/null; read -r _ < "$GATE"; }; exit "${PIPESTATUS[0]}""#
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start(
                        reportingTerminalMode(
                            ["env", "GATE=\(gate)", "bash", "-c", script, demo]
                                + (namingTheServer ? ["--server", server.baseURL] : []) + ["fetch", url]))
                    try await tmux.go()

                    try await waitUntil { try await tmux.capture().contains(where: isBarLine) }
                    #expect(try await tmux.display("#{cursor_flag}") == "0", "the cursor is hidden under the bar")
                    try await onOwnThread { try Data("go\n".utf8).write(to: URL(fileURLWithPath: gate)) }

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=141"), "\(shown)")
                    #expect(!screen.contains(where: isBarLine), "the bar was cleared:\n\(shown)")
                    #expect(!shown.contains("Fatal error") && !shown.contains("💣"), "\(shown)")
                    #expect(screen.contains(restoredMode), "\(shown)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
                }
            }
        }
    }

    @Test func asksAfterTheRetriesAreSpentAndRSendsTheRequestAgain() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            server.faults.script("/weather", [.drop])
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start(
                        reportingTerminalMode([
                            demo, "--server", server.baseURL, "--retries", "0", "weather", "forecast", "Toronto",
                        ]))
                    try await tmux.go()

                    try await waitUntil {
                        try await tmux.capture().contains { $0.hasPrefix("Retry? [r]etry / [a]bort") }
                    }
                    let asking = try await tmux.capture().joined(separator: "\n")
                    #expect(asking.contains("Attempts made: 1."), "\(asking)")
                    try await tmux.sendKeys("r")

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=0"), "\(shown)")
                    #expect(screen.contains("Toronto, Canada"), "\(shown)")
                    #expect(screen.contains(restoredMode), "\(shown)")
                    #expect(server.faults.counters(for: "/weather").requests == 2)
                }
            }
        }
    }

    @Test func neverAsksWithNoInputAndFailsWithStatusThree() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            server.faults.script("/weather", [.drop])
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    try await tmux.start([
                        demo, "--server", server.baseURL, "--retries", "0", "--no-input", "weather", "forecast",
                        "Toronto",
                    ])
                    try await tmux.go()

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=3"), "\(shown)")
                    #expect(!shown.contains("Retry?"), "no question:\n\(shown)")
                    #expect(server.faults.counters(for: "/weather").requests == 1)
                }
            }
        }
    }

    @Test func theTourFinishesByItselfInATerminal() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await withTemporaryFolder { folder in
            try await Tmux.withServer(folder: folder) { tmux in
                try await tmux.start(reportingTerminalMode([demo, "tour"]))
                try await tmux.go()

                try await waitUntil(timeout: .seconds(90)) {
                    try await tmux.capture().contains { $0.contains("exit=") }
                }
                let screen = try await tmux.capture(history: true)
                let shown = screen.joined(separator: "\n")
                #expect(screen.contains("exit=0"), "\(shown)")
                #expect(shown.contains("Tour done."), "\(shown)")
                #expect(screen.contains(restoredMode), "\(shown)")
                #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
            }
        }
    }
}

/// The size of the file at `path`, or -1 when there is none.
private func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
}
