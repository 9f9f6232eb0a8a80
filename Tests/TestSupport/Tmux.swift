import Foundation
package import Glibc
import Testing

/// The line ``reportingTerminalMode(_:)`` prints for a terminal in its usual, canonical mode.
package let restoredMode = "mode: isig icanon echo"

/// `command`, followed by a line with the pane's terminal mode as `stty` reports its `isig`,
/// `icanon` and `echo` flags (each `-`prefixed when off); exits with the command's status.
package func reportingTerminalMode(_ command: [String]) -> [String] {
    let script = #"""
        "$@"; status=$?; printf 'mode:'
        for flag in $(stty -a); do
            case "$flag" in isig|-isig|icanon|-icanon|echo|-echo) printf ' %s' "$flag";; esac
        done
        echo; exit $status
        """#
    return ["sh", "-c", script, "sh"] + command
}

/// A drawn progress bar: `label  [████░░░░]  45%  …`.
package func isBarLine(_ line: String) -> Bool {
    line.contains("[") && line.contains("%")
}

/// A tmux server of its own, with one pane of 100 × 20 cells, which runs a shell that runs
/// the command under test, prints its exit status and stays, so that the screen and the cursor
/// can be read after the command has gone.
package struct Tmux: Sendable {
    /// The tmux executable on `PATH`, if any.
    package static let path: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether a missing tmux must fail the run (`make test` sets `PARLEY_REQUIRE_SERVERS=1`).
    package static var required: Bool { ProcessInfo.processInfo.environment["PARLEY_REQUIRE_SERVERS"] == "1" }

    package let executable: String
    /// The server's socket name, for `tmux -L`.
    package let socket: String
    /// The configuration file the server starts with.
    package let configuration: String
    /// The one pane, as a target for `-t`.
    package let target = "parley:0.0"

    /// Runs `body` with a new server, configured in `folder`; kills that server afterwards by its
    /// socket, whether `body` returns or throws (its programs get `SIGHUP`).
    package static func withServer<T>(folder: String, _ body: (Tmux) async throws -> T) async throws -> T {
        let executable = try #require(path, "tmux is not installed: run Tools/scripts/setup.sh")
        let configuration = folder + "/tmux.conf"
        // No status line: the pane is the whole 100 × 20. A cleared screen is not scrolled into
        // the history, so a bar found there was left behind, not erased.
        let settings = "set -g status off\nsetw -g scroll-on-clear off\nset -g history-limit 1000\n"
        try Data(settings.utf8).write(to: URL(fileURLWithPath: configuration))
        let tmux = Tmux(
            executable: executable, socket: "parley-test-\(UUID().uuidString.prefix(8).lowercased())",
            configuration: configuration)
        do {
            let result = try await body(tmux)
            try await tmux.stop()
            return result
        } catch {
            _ = try? await tmux.stop()
            throw error
        }
    }

    /// Kills the server and removes its socket, which tmux leaves behind.
    private func stop() async throws {
        try await run(["kill-server"], checked: false)
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(folder)/tmux-\(getuid())/\(socket)")
    }

    /// Starts the server and its pane. The pane's shell waits for ``go()``, runs `command`
    /// in the foreground (where Ctrl-C reaches it), prints `exit=STATUS` and stays.
    ///
    /// The shell traps `SIGINT` with a handler, not `SIG_IGN`, so that it outlives Ctrl-C to
    /// print the status while `command` starts with the default disposition.
    package func start(_ command: [String]) async throws {
        let script = #""$0" -L "$1" wait-for go; shift; trap : INT; "$@"; echo "exit=$?"; exec sleep 3600"#
        try await run(
            [
                "new-session", "-d", "-s", "parley", "-x", "100", "-y", "20", "--", "sh", "-c", script, executable,
                socket,
            ]
                + command)
    }

    /// Lets the pane's command start.
    package func go() async throws {
        try await run(["wait-for", "-S", "go"])
    }

    /// The process id of the command the pane's shell runs, if it runs.
    package func runningCommand() async throws -> pid_t? {
        let shell = try await display("#{pane_pid}")
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// The value of a format (`#{cursor_flag}`) for the pane.
    package func display(_ format: String) async throws -> String {
        try await run(["display-message", "-p", "-t", target, format])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pane's lines, from the top of its history when `history` is set.
    package func capture(history: Bool = false) async throws -> [String] {
        let text = try await run(["capture-pane", "-p", "-t", target] + (history ? ["-S", "-"] : []))
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Types keys into the pane, as tmux names them (`C-c`).
    package func sendKeys(_ keys: String) async throws {
        try await run(["send-keys", "-t", target, keys])
    }

    /// Runs a tmux command against this server on a thread of its own; returns its output, or
    /// (when `checked`) fails with its error output.
    @discardableResult
    package func run(_ arguments: [String], checked: Bool = true) async throws -> String {
        let command = [executable, "-L", socket, "-f", configuration] + arguments
        // The server inherits this environment, and the pane the server's: nothing that would
        // change how the program under test draws (CI, TERM=dumb, NO_COLOR) or nest in a user's tmux.
        var removed: [String: String?] = [:]
        for name in ["TMUX", "TMUX_PANE", "CI", "TERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES"] {
            removed[name] = .some(nil)
        }
        let (status, text) = try await onOwnThread { [removed] in try Self.spawn(command, environment: removed) }
        try #require(
            !checked || status == 0, "tmux \(arguments.joined(separator: " ")) exited with \(status): \(text)")
        return text
    }

    /// Runs `command` and waits for it; returns its exit status and its output.
    ///
    /// Started as every child of the tests is (``SpawnedChild``): with a shell's signal state,
    /// or the tmux server that `new-session` forks would run with every signal blocked and never
    /// see `SIGCHLD` (its panes' exits) or `SIGTERM` (`kill-server`); and without this process's
    /// sockets, which that long-lived server would otherwise hold open. The output goes to a
    /// file rather than a pipe, which the server would hold open too.
    private static func spawn(_ command: [String], environment: [String: String?]) throws -> (Int32, String) {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tmux-\(UUID())")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let child = try SpawnedChild.start(
            command[0], arguments: Array(command.dropFirst()), environment: environment, output: .standardError,
            errors: .file(outputFile.path))
        let status = child.waitForExit().shellStatus
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return (status, text)
    }
}
