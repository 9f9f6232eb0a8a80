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
        var descriptors: [Int32] = [-1, -1]
        // Close-on-exec, so that no other child started meanwhile holds the pipe open.
        try #require(pipe(&descriptors) == 0, "pipe: \(String(cString: strerror(errno)))")
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-closed-\(UUID()).err")
        defer { try? FileManager.default.removeItem(at: errorFile) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = SignalReset()
        defer { attributes.destroy() }

        let command = (ignoringSIGPIPE ? ["/usr/bin/env", "--ignore-signal=PIPE", path] : [path]) + arguments
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes.value, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            try #require(Bool(false), "could not start \(command[0]): \(String(cString: strerror(spawned)))")
            throw CancellationError()
        }

        var read = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read.count < bytes {
            let count = buffer.withUnsafeMutableBytes {
                Glibc.read(readEnd, $0.baseAddress, min($0.count, bytes - read.count))
            }
            if count > 0 {
                read.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(readEnd)
        if let stop { kill(pid, stop) }

        var status: Int32 = 0
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            if clock.now > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        let standardError = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        let signaled = (status & 0x7F) != 0
        return ClosedOutputRun(
            signal: signaled ? status & 0x7F : nil, exitStatus: signaled ? nil : (status >> 8) & 0xFF, read: read,
            standardError: standardError)
    }
}
