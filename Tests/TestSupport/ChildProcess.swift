import Foundation
import Glibc
import Testing
import Transport

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
    ///
    /// Cancelling the awaiting task (a test's time limit, for one) stops the child and what it
    /// started with `SIGTERM` to its process group, so that a child that cannot finish ends
    /// the test instead of hanging the suite; the result then has the status of a child killed
    /// by that signal.
    package static func launch(
        _ path: String, arguments: [String], standardOutput: String? = nil, environment: [String: String] = [:]
    ) async throws -> ChildProcess {
        let stop = Stop()
        return try await withTaskCancellationHandler {
            try await onOwnThread {
                try run(
                    path, arguments: arguments, standardOutput: standardOutput, environment: environment, stop: stop)
            }
        } onCancel: {
            stop.request()
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
    ///   - stop: Stops the child once requested; none by default.
    package static func run(
        _ path: String, arguments: [String], standardOutput: String? = nil, environment: [String: String] = [:],
        stop: Stop? = nil
    ) throws -> ChildProcess {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let timeFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).rss")
        defer { try? FileManager.default.removeItem(at: timeFile) }
        // A process group of its own, so that a stop reaches the program as well as GNU time;
        // standard input is /dev/null, so that a child in that group never reads a terminal.
        let child = try SpawnedChild.start(
            "/usr/bin/time", arguments: ["-o", timeFile.path, "-f", "%M", path] + arguments, environment: environment,
            output: standardOutput.map { .file($0) } ?? .standardError, errors: .file(outputFile.path),
            newProcessGroup: true)
        stop?.started(child)
        let exitStatus = child.waitForExit().shellStatus
        stop?.ended()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let report = (try? String(contentsOf: timeFile, encoding: .utf8)) ?? ""
        let kilobytes = report.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        // GNU time stopped with its program prints no peak; a child that ran to its end has one.
        if stop?.wasRequested != true {
            try #require(kilobytes != nil, "/usr/bin/time printed no peak RSS: \(report)")
        }
        return ChildProcess(status: exitStatus, output: output, peakResidentBytes: (kilobytes ?? 0) * 1024)
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
        closeInheritedDescriptors(&actions)
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

extension ChildProcess {
    /// Stops a child of ``ChildProcess/run(_:arguments:standardOutput:environment:stop:)`` from
    /// another thread: the process group it leads gets `SIGTERM`, at once when it runs, or as
    /// it starts when the request came first.
    package final class Stop: Sendable {
        private let state = PThreadMutex(State())

        private struct State {
            /// The child while it runs.
            var child: SpawnedChild?
            /// Whether a stop was asked for.
            var requested = false
        }

        package init() {}

        /// Whether a stop was requested.
        package var wasRequested: Bool { state.withLock { $0.requested } }

        /// Stops the child now if it runs, or as soon as it starts.
        package func request() {
            let child = state.withLock { state -> SpawnedChild? in
                state.requested = true
                return state.child
            }
            child?.send(SIGTERM, group: true)
        }

        /// Records the started child, and stops it at once when a stop came first.
        func started(_ child: SpawnedChild) {
            let requested = state.withLock { state -> Bool in
                state.child = child
                return state.requested
            }
            if requested { child.send(SIGTERM, group: true) }
        }

        /// The child was reaped.
        func ended() {
            state.withLock { $0.child = nil }
        }
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

    /// - Parameter newProcessGroup: Whether the child leads a process group of its own.
    init(newProcessGroup: Bool = false) {
        posix_spawnattr_init(&value)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&value, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&value, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&value, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&value, Int16(flags))
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

/// Has a child close every descriptor above standard error before it runs: the test process
/// holds hundreds of sockets without close-on-exec (the in-process servers' connections).
///
/// A child that inherited them kept each connection open after the server closed it, so no
/// end of stream reached the client: a client that reused such a connection, or waited for a
/// dropped one to close, stalled for as long as the child lived (a child running for seconds
/// stalled the clients of every in-process server for 30 s). The inherited sockets also took
/// the low descriptor numbers that a child under a small `ulimit -n` needs.
///
/// glibc 2.34 and later have `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc
/// module does not declare: it is looked up by name, and a C library without it leaves the
/// actions as they are.
func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
}
