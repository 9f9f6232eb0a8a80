import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// `parley-fetch`'s progress as a person sees it: the built binary in a real pseudo-terminal,
/// a tmux pane of a fixed size, against a slow route of the mock server; and the same download
/// where standard error is not a terminal.
///
/// tmux runs as a private server on a socket of its own (`tmux -L parley-test-…`), stopped by
/// that socket at the end of each test; the user's tmux server, if any, is never touched.
@Suite(.enabled(if: Tmux.path != nil || Tmux.required, "tmux is not installed: run Tools/scripts/setup.sh"))
struct ParleyFetchTerminalTests {
    @Test func ctrlCInATerminalClearsTheBarShowsTheCursorAndKeepsThePartialFile() async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    // 64 MiB at 64 KiB every 50 ms: about a minute, far longer than the test.
                    let output = folder + "/big.bin"
                    try await tmux.start([fetch, server.url("/bytes/67108864?chunk-delay=50"), "--output", output])
                    try await tmux.go()

                    try await waitUntil {
                        let screen = try await tmux.capture()
                        return screen.contains(where: isBarLine) && fileSize(output + ".partial") > 0
                            && fileSize(output + ".partial.json") > 0
                    }
                    #expect(
                        try await tmux.display("#{cursor_flag}") == "0", "the cursor is hidden while the bar is drawn")
                    let pid = try #require(try await tmux.runningCommand(), "parley-fetch runs in the pane")

                    try await tmux.sendKeys("C-c")
                    // Left behind, the terminal's echo `^C` would precede the status on its line.
                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }

                    let screen = try await tmux.capture(history: true)
                    let shown = screen.joined(separator: "\n")
                    // A shell reports a command killed by SIGINT as 128 + 2.
                    #expect(screen.contains { $0.hasSuffix("exit=130") }, "the exit reflects SIGINT:\n\(shown)")
                    let gone = kill(pid, 0) == -1 && errno == ESRCH
                    #expect(gone, "parley-fetch (\(pid)) is gone")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
                    #expect(!screen.contains(where: isBarLine), "the bar was cleared:\n\(shown)")
                    #expect(fileSize(output + ".partial") > 0)
                    #expect(fileSize(output + ".partial.json") > 0)
                    #expect(!FileManager.default.fileExists(atPath: output))
                }
            }
        }
    }

    @Test func withoutATerminalProgressIsPlainLinesEndingWithTheSummaryAndQuietPrintsNone() async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                // 3 MiB at 64 KiB every 80 ms: about 4 s, so that a status line (every 2 s) is due.
                let url = server.url("/bytes/3145728?chunk-delay=80")
                async let shown = ChildProcess.launch(fetch, arguments: [url, "--output", folder + "/shown.bin"])
                async let quiet = ChildProcess.launch(
                    fetch, arguments: [url, "--output", folder + "/quiet.bin", "--quiet"])
                let (piped, silent) = try await (shown, quiet)

                #expect(piped.status == 0, "\(piped.output)")
                #expect(!piped.output.utf8.contains(0x1B), "no escape sequence: \(piped.output.debugDescription)")
                #expect(!piped.output.utf8.contains(0x0D), "no carriage return: \(piped.output.debugDescription)")
                let lines = piped.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                #expect(lines.last == "", "the output ends with a whole line")
                #expect(lines.contains { $0.hasPrefix("shown.bin: ") && $0.contains("%") }, "a status line")
                let summary = lines.dropLast().suffix(2)
                #expect(summary.first?.hasPrefix("shown.bin: done, ") == true, "\(piped.output)")
                #expect(summary.last?.hasPrefix("parley-fetch: saved \(folder)/shown.bin (3145728 bytes") == true)

                #expect(silent.status == 0, "\(silent.output)")
                #expect(silent.output == "", "--quiet prints nothing: \(silent.output.debugDescription)")
                #expect(fileSize(folder + "/quiet.bin") == 3_145_728)
            }
        }
    }

    @Test func aDumbTerminalGetsPlainLinesWithoutEscapeSequences() async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    let output = folder + "/dumb.bin"
                    let written = folder + "/pane.out"
                    // pipe-pane records what the program writes, escape sequences included, where
                    // capture-pane shows only the resulting screen; the command starts after it.
                    try await tmux.start([
                        "env", "TERM=dumb", fetch, server.url("/bytes/3145728?chunk-delay=80"), "--output", output,
                    ])
                    try await tmux.run(["pipe-pane", "-t", tmux.target, "cat > '\(written)'"])
                    try await tmux.go()

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    #expect(try await tmux.capture().contains("exit=0"))
                    try await waitUntil {
                        let text = (try? String(contentsOfFile: written, encoding: .utf8)) ?? ""
                        return text.contains("exit=0")
                    }
                    let text = try String(contentsOfFile: written, encoding: .utf8)
                    #expect(!text.utf8.contains(0x1B), "no escape sequence: \(text.debugDescription)")
                    // The terminal turns each "\n" into "\r\n" (onlcr); no other "\r" is written. (A
                    // String's "\r\n" is one Character, hence the bytes below.)
                    let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                    #expect(!lines.contains { $0.utf8.contains(0x0D) }, "no carriage return: \(text.debugDescription)")
                    #expect(lines.contains { $0.hasPrefix("dumb.bin: ") && $0.contains("%") }, "a status line")
                    #expect(lines.contains { $0.hasPrefix("dumb.bin: done, ") }, "the summary line")
                    #expect(!lines.contains(where: isBarLine), "no bar: \(text.debugDescription)")
                    #expect(fileSize(output) == 3_145_728)
                }
            }
        }
    }

    // MARK: - The interactive re-request

    @Test func aDropWithNoRetriesLeftAsksAndRRetriesToTheWholeFile() async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    // The first request for the key is closed after 300000 of the 1 MiB.
                    let output = folder + "/dropped.bin"
                    let url = server.url("/bytes/1048576?drop-after=300000&key=retry-\(UUID())&drops=1")
                    try await tmux.start(reportingTerminalMode([fetch, url, "--output", output, "--retries", "0"]))
                    try await tmux.go()

                    try await waitUntil {
                        try await tmux.capture().contains { $0.hasPrefix("Retry? [r]etry / [a]bort") }
                    }
                    let asking = try await tmux.capture()
                    let shown = asking.joined(separator: "\n")
                    #expect(asking.contains("The connection to the server was lost. Try again."), "\(shown)")
                    #expect(shown.contains("closed the connection before sending the whole body"), "the detail")
                    #expect(asking.contains("  Attempts made: 1."), "\(shown)")
                    #expect(asking.contains("  Sending this GET again is safe: it cannot be applied twice."))
                    #expect(!asking.contains(where: isBarLine), "no bar over the question:\n\(shown)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1", "the cursor is visible while it asks")
                    #expect(fileSize(output + ".partial") > 0, "the bytes before the drop are kept")

                    try await tmux.sendKeys("r")
                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }

                    let screen = try await tmux.capture(history: true)
                    let text = screen.joined(separator: "\n")
                    #expect(screen.contains(question + "retry"), "the answer is echoed as a word:\n\(text)")
                    #expect(screen.contains { $0.hasPrefix("parley-fetch: saved \(output) (1048576 bytes") }, "\(text)")
                    #expect(screen.contains("exit=0"), "\(text)")
                    #expect(screen.contains(restoredMode), "the terminal's mode is put back:\n\(text)")
                    #expect(try contents(output) == pattern(0..<1_048_576))
                    #expect(fileSize(output + ".partial") == -1)
                }
            }
        }
    }

    @Test(arguments: ["a", "C-c"])
    func abortingAtThePromptFailsWithTheErrorAndKeepsThePartial(key: String) async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    let output = folder + "/dropped.bin"
                    let url = server.url("/bytes/1048576?drop-after=300000&key=abort-\(UUID())&drops=1")
                    try await tmux.start(reportingTerminalMode([fetch, url, "--output", output, "--retries", "0"]))
                    try await tmux.go()

                    try await waitUntil {
                        try await tmux.capture().contains { $0.hasPrefix("Retry? [r]etry / [a]bort") }
                    }
                    // Ctrl-C is a key while the question is open: it aborts, the program ends as
                    // after any failure (not killed by SIGINT), and the terminal is put back.
                    try await tmux.sendKeys(key)
                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }

                    let screen = try await tmux.capture(history: true)
                    let text = screen.joined(separator: "\n")
                    #expect(screen.contains(question + "abort"), "\(text)")
                    #expect(
                        screen.contains { $0.hasPrefix("parley-fetch: error: The server at") }, "the error:\n\(text)")
                    #expect(screen.contains("exit=1"), "\(text)")
                    #expect(screen.contains(restoredMode), "the terminal's mode is put back:\n\(text)")
                    #expect(try await tmux.display("#{cursor_flag}") == "1")
                    #expect(fileSize(output + ".partial") > 0)
                    #expect(!FileManager.default.fileExists(atPath: output))
                }
            }
        }
    }

    @Test func sigtermWhileItAsksPutsTheTerminalBack() async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    let output = folder + "/dropped.bin"
                    let url = server.url("/bytes/1048576?drop-after=300000&key=term-\(UUID())&drops=1")
                    try await tmux.start(reportingTerminalMode([fetch, url, "--output", output, "--retries", "0"]))
                    try await tmux.go()
                    try await waitUntil {
                        try await tmux.capture().contains { $0.hasPrefix("Retry? [r]etry / [a]bort") }
                    }

                    // The pane's shell runs the reporting shell, which runs parley-fetch.
                    let wrapper = try #require(try await tmux.runningCommand(), "the reporting shell runs")
                    let pid = try #require(childProcess(of: wrapper), "parley-fetch runs")
                    #expect(kill(pid, SIGTERM) == 0)
                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }

                    let screen = try await tmux.capture(history: true)
                    let text = screen.joined(separator: "\n")
                    #expect(screen.contains("exit=143"), "SIGTERM still ends the process:\n\(text)")
                    #expect(screen.contains(restoredMode), "the terminal's mode is put back:\n\(text)")
                    #expect(fileSize(output + ".partial") > 0)
                }
            }
        }
    }

    @Test(arguments: [InputCase.standardInputFromDevNull, .noInputSwitch])
    func withoutInputItDoesNotAskAndFailsAtOnce(input: InputCase) async throws {
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                try await Tmux.withServer(folder: folder) { tmux in
                    let output = folder + "/dropped.bin"
                    let url = server.url("/bytes/1048576?drop-after=300000&key=no-input-\(UUID())&drops=1")
                    let command = [fetch, url, "--output", output, "--retries", "0"]
                    switch input {
                    case .standardInputFromDevNull:
                        // Standard error is still the terminal; standard input is not.
                        try await tmux.start(["sh", "-c", #"exec "$@" < /dev/null"#, "sh"] + command)
                    case .noInputSwitch:
                        try await tmux.start(command + ["--no-input"])
                    }
                    try await tmux.go()

                    try await waitUntil { try await tmux.capture().contains { $0.contains("exit=") } }
                    let screen = try await tmux.capture(history: true)
                    let text = screen.joined(separator: "\n")
                    #expect(!text.contains("Retry?"), "no question:\n\(text)")
                    #expect(screen.contains { $0.hasPrefix("parley-fetch: error: The server at") }, "\(text)")
                    #expect(screen.contains("exit=1"), "\(text)")
                    #expect(fileSize(output + ".partial") > 0)
                }
            }
        }
    }

    /// How `withoutInputItDoesNotAskAndFailsAtOnce` keeps parley-fetch from asking.
    enum InputCase: Sendable, CustomTestStringConvertible {
        case standardInputFromDevNull, noInputSwitch

        var testDescription: String {
            switch self {
            case .standardInputFromDevNull: "standard input from /dev/null"
            case .noInputSwitch: "--no-input"
            }
        }
    }
}

/// The reload prompt's question, which the echoed answer follows on its row (tmux drops the
/// trailing space of a row while no answer follows it).
private let question = "Retry? [r]etry / [a]bort "

/// The first child of process `parent`, if it has one.
private func childProcess(of parent: pid_t) -> pid_t? {
    let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
    return children.split(separator: " ").first.flatMap { pid_t($0) }
}

/// The size of the file at `path`, or -1 when there is none.
private func fileSize(_ path: String) -> Int {
    // Through FileManager rather than `stat`: which Clang module owns `struct stat` depends on
    // the order modules load in, and with MemberImportVisibility that order can fail the build.
    guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return -1 }
    return size.intValue
}
