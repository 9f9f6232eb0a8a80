package import Foundation
import Glibc
import Testing

/// A run of a program whose standard output is a pipe that its reader closed early, as
/// `program | head -c 10` does: how it ended, and what it wrote on standard error.
package struct ClosedOutputRun: Sendable {
    /// The signal that killed it, if one did.
    package let signal: Int32?
    /// Its exit status, if it exited.
    package let exitStatus: Int32?
    /// The bytes the reader took before closing.
    package let read: Data
    /// Standard error, whole.
    package let standardError: String

    /// The status a shell reports: the exit status, or 128 plus the signal.
    package var shellStatus: Int32 { signal.map { 128 + $0 } ?? exitStatus ?? -1 }

    /// Whether standard error shows a trap: Swift's fatal error or a backtrace.
    package var trapped: Bool {
        ["Fatal error", "Current stack trace", "💣", "Backtrace", "Illegal instruction"].contains {
            standardError.contains($0)
        }
    }

    /// Runs `path` with `arguments`, reads `bytes` bytes of its standard output (none: the
    /// pipe is closed before the program can write), closes the pipe, and waits for the
    /// program to end.
    ///
    /// The program starts as a shell starts it: every signal unblocked, and `SIGPIPE`,
    /// `SIGINT` and `SIGTERM` at their default action (`Process` would start it with every
    /// signal blocked), standard input `/dev/null`, standard error a file. With
    /// `ignoringSIGPIPE`, it starts through coreutils' `env --ignore-signal=PIPE`, as under a
    /// supervisor that ignores `SIGPIPE`.
    ///
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments.
    ///   - bytes: How many bytes to read before closing; 0 closes at once.
    ///   - environment: Variables to set over this process's.
    ///   - ignoringSIGPIPE: Whether the program starts with `SIGPIPE` ignored.
    ///   - stop: Sent once the pipe is closed, for a program that would run on (a server);
    ///     `nil` (the default) sends nothing.
    ///   - limit: How long the program may take to end before it is killed with `SIGKILL`
    ///     (a safety net against a hang, not a measured time).
    /// - Returns: The run.
    package static func run(
        _ path: String, arguments: [String], readingBytes bytes: Int, environment: [String: String] = [:],
        ignoringSIGPIPE: Bool = false, stop: Int32? = nil, limit: Duration = .seconds(120)
    ) async throws -> ClosedOutputRun {
        try await onOwnThread {
            try runBlocking(
                path, arguments: arguments, bytes: bytes, environment: environment, ignoringSIGPIPE: ignoringSIGPIPE,
                stop: stop, limit: limit)
        }
    }

    private static func runBlocking(
        _ path: String, arguments: [String], bytes: Int, environment: [String: String], ignoringSIGPIPE: Bool,
        stop: Int32?, limit: Duration
    ) throws -> ClosedOutputRun {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-closed-\(UUID()).err")
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let command = (ignoringSIGPIPE ? ["/usr/bin/env", "--ignore-signal=PIPE", path] : [path]) + arguments
        let child = try SpawnedChild.start(
            command[0], arguments: Array(command.dropFirst()), environment: environment, output: .pipe,
            errors: .file(errorFile.path))

        var read = Data()
        if let output = child.output {
            while read.count < bytes, let chunk = output.readChunkRetryingInterrupts(upTo: bytes - read.count) {
                read.append(chunk)
            }
            try? output.close()
        }
        if let stop { child.send(stop) }

        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while child.isRunning {
            if clock.now > deadline {
                child.kill()
                break
            }
            usleep(10_000)
        }
        let ended = child.waitForExit()
        let standardError = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return ClosedOutputRun(
            signal: ended.signal, exitStatus: ended.exitStatus, read: read, standardError: standardError)
    }
}
