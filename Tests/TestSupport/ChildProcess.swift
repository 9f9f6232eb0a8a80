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
    /// Stops a child of ``ChildProcess/run(_:arguments:standardOutput:environment:stop:)`` from
    /// another thread: the process group it leads gets `SIGTERM`, at once when it runs, or as
    /// it starts when the request came first.
    package final class Stop: Sendable {
        private let state = PThreadMutex(State())

        private struct State {
            /// The child, once started: a signal to it after it was reaped reaches nothing
            /// (`SpawnedChild.send`).
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
    }
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
