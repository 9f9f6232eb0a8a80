import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `parley-mock-server` running as a child, with its chaos on.
///
/// A child rather than the in-process server: the server records every request it receives,
/// which would be counted as this process's growth.
struct MockServerProcess: Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    /// The child's process id.
    let pid: pid_t

    /// Starts the server on a free port and waits for its `listening on URL` line.
    ///
    /// - Parameters:
    ///   - path: The `parley-mock-server` executable.
    ///   - chaos: The share of business requests faulted.
    ///   - seed: The chaos seed.
    ///   - faults: The faults chaos picks among, as `--chaos-faults` names them.
    static func start(_ path: String, chaos: Double, seed: UInt64, faults: [String]) throws -> MockServerProcess {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw SoakError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        let arguments = [
            path, "--port", "0", "--chaos", String(chaos), "--chaos-seed", String(seed), "--chaos-faults",
            faults.joined(separator: ","),
        ]
        let pid = try spawn(arguments, standardOutput: pipe[1])
        close(pipe[1])
        defer { close(pipe[0]) }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(pipe[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on ") else {
            kill(pid, SIGKILL)
            _ = reap(pid)
            throw SoakError("\(path) did not start: it printed '\(text)'")
        }
        return MockServerProcess(baseURL: String(text.dropFirst("listening on ".count)), pid: pid)
    }

    /// Stops the server with SIGTERM and waits for it.
    func stop() {
        kill(pid, SIGTERM)
        _ = reap(pid)
    }

    /// The server's resident memory in KiB, from `/proc/PID/status`; 0 when unreadable.
    var residentKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    }
}

/// Starts `arguments[0]` with `arguments`, its standard output on `standardOutput` (or
/// `/dev/null`), its standard error on `/dev/null`, and returns its process id.
///
/// - Throws: ``SoakError`` when it cannot be started.
func spawn(_ arguments: [String], standardOutput: Int32? = nil) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let standardOutput {
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    guard status == 0 else { throw SoakError("cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
    return pid
}

/// Waits for `pid` to end, blocking the calling thread; its exit status, or 128 + the signal
/// that ended it.
func reap(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Runs `work` on a thread of its own and waits for it, so that blocking (`waitpid`) never holds
/// a thread of Swift's small cooperative pool.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.start()
    }
}

/// A failure of the soak's own machinery (a child that cannot start), not of the library.
struct SoakError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
