import Foundation
import Glibc
import Testing

/// Runs an executable built beside the tests and reports its exit status, its output and
/// its peak resident memory.
///
/// The child starts with the signal state a shell gives a program (nothing blocked; `SIGINT`,
/// `SIGTERM`, `SIGHUP` and `SIGPIPE` at their defaults), whatever this test process's threads
/// block or ignore.
///
/// The peak is measured by GNU time (`/usr/bin/time -f %M`), which starts the program with
/// `fork`: a program started from this process with `posix_spawn` (a `vfork`) would have
/// this whole test process's peak folded into its own by the kernel at `exec`.
package struct ChildProcess {
    package let status: Int32
    package let output: String
    package let peakResidentBytes: Int

    /// The path of an executable: a product of this package built beside the test bundle
    /// (`parley-cache-writer`, `parley-mock-server`), or a tool of `Tools/All` (`parley-fetch`,
    /// `parley-bench`, `parley-demo`, `parley-soak`) in the folder `PARLEY_TOOLS_BIN` names,
    /// `.build/tools/debug` by default. The tools depend on the library, so this package cannot
    /// build them beside its tests; `make tools` (run by `make test`) builds them there. That
    /// folder is searched first: a build folder may still hold a tool built beside the tests
    /// before the tools moved out, and such a copy would be stale.
    package static func siblingExecutable(_ name: String) throws -> String {
        let tools = ProcessInfo.processInfo.environment["PARLEY_TOOLS_BIN"] ?? ".build/tools/debug"
        let tool = URL(fileURLWithPath: tools).appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: tool) { return tool }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // The test binary may sit inside a `.xctest` bundle folder.
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        try #require(
            Bool(false),
            """
            \(name) is neither built beside the tests nor in \(tools) (PARLEY_TOOLS_BIN): run `make tools` \
            (make test does), or set PARLEY_TOOLS_BIN to the folder of a build of Tools/All
            """)
        return name
    }

    /// Runs `path` with `arguments` and waits for it to exit on a thread of its own, so that
    /// the wait never holds one of the few threads of Swift's cooperative pool.
    ///
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments.
    ///   - standardOutput: Where standard output goes; `nil` (the default) puts it in ``output``
    ///     with standard error.
    ///   - environment: Variables set for the child on top of this process's own; none by
    ///     default.
    package static func launch(
        _ path: String, arguments: [String], standardOutput: String? = nil, environment: [String: String] = [:]
    ) async throws -> ChildProcess {
        try await onOwnThread {
            try run(path, arguments: arguments, standardOutput: standardOutput, environment: environment)
        }
    }

    /// Runs `path` with `arguments`, blocking the calling thread until it exits.
    ///
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments.
    ///   - standardOutput: Where standard output goes; `nil` (the default) puts it in ``output``
    ///     with standard error.
    ///   - environment: Variables set for the child on top of this process's own; none by
    ///     default.
    package static func run(
        _ path: String, arguments: [String], standardOutput: String? = nil, environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let standardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }

        let timeFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).rss")
        defer { try? FileManager.default.removeItem(at: timeFile) }
        let timed = ["/usr/bin/time", "-o", timeFile.path, "-f", "%M", path] + arguments
        let argv = timed.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, given in given }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var attributes = SignalReset()
        defer { attributes.destroy() }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/time", &actions, &attributes.value, argv, envp)
        try #require(spawned == 0, "could not start /usr/bin/time \(path): \(String(cString: strerror(spawned)))")

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let report = (try? String(contentsOf: timeFile, encoding: .utf8)) ?? ""
        let kilobytes = try #require(
            report.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            "/usr/bin/time printed no peak RSS: \(report)")
        return ChildProcess(status: exitStatus, output: output, peakResidentBytes: kilobytes * 1024)
    }
}

extension ChildProcess {
    /// Starts `path` with `arguments` in the background, as a shell would: with no signal blocked
    /// and `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGPIPE` at their default dispositions. Standard
    /// input is `/dev/null`; standard output and error go to `/dev/null` too.
    ///
    /// - Returns: The child's process id; stop it with `kill` and reap it with `waitpid`.
    package static func start(_ path: String, arguments: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = SignalReset()
        defer { attributes.destroy() }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes.value, argv, environ)
        try #require(spawned == 0, "could not start \(path): \(String(cString: strerror(spawned)))")
        return pid
    }
}

/// Spawn attributes that give a child the signal state a shell gives it: nothing blocked, and
/// `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGCHLD` and `SIGPIPE` at their default dispositions.
///
/// Every child the tests start gets them. The threads of this test process (Foundation's among them) run with signals blocked, and a
/// child inherits the blocked set of the thread that starts it: a child that cannot receive
/// `SIGTERM` never stops, and one with `SIGPIPE` blocked would hide the very signal a test looks
/// for.
struct SignalReset {
    var value = posix_spawnattr_t()

    init() {
        posix_spawnattr_init(&value)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&value, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&value, &defaults)
        posix_spawnattr_setflags(&value, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    mutating func destroy() { posix_spawnattr_destroy(&value) }
}

/// Runs `work` on a thread of its own and waits for it.
///
/// For work that blocks (waiting for a child process, polling a file every millisecond): on
/// one of the cooperative pool's few threads it would starve the in-process mock server, and
/// a busy pool would delay it.
package func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
