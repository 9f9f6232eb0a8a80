import Foundation
import Glibc
import Testing

/// Runs an executable built beside the tests and reports its exit status, its output and
/// its peak resident memory.
///
/// The peak is measured by GNU time (`/usr/bin/time -f %M`), which starts the program with
/// `fork`: a program started from this process with `posix_spawn` (a `vfork`) would have
/// this whole test process's peak folded into its own by the kernel at `exec`.
package struct ChildProcess {
    package let status: Int32
    package let output: String
    package let peakResidentBytes: Int

    /// The path of an executable product in the same build folder as the test bundle.
    package static func siblingExecutable(_ name: String) throws -> String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // The test binary may sit inside a `.xctest` bundle folder.
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        try #require(Bool(false), "\(name) is not built beside the tests: run `swift build` (make test does) first")
        return name
    }

    /// Runs `path` with `arguments` and waits for it to exit on a thread of its own, so that
    /// the wait never holds one of the few threads of Swift's cooperative pool.
    ///
    /// - Parameter environment: Variables set for the child on top of this process's own;
    ///   none by default.
    package static func launch(
        _ path: String, arguments: [String], environment: [String: String] = [:]
    ) async throws -> ChildProcess {
        try await onOwnThread { try run(path, arguments: arguments, environment: environment) }
    }

    /// Runs `path` with `arguments`, blocking the calling thread until it exits.
    ///
    /// - Parameter environment: Variables set for the child on top of this process's own;
    ///   none by default.
    package static func run(
        _ path: String, arguments: [String], environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let timeFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID()).rss")
        defer { try? FileManager.default.removeItem(at: timeFile) }
        let timed = ["/usr/bin/time", "-o", timeFile.path, "-f", "%M", path] + arguments
        let argv = timed.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, given in given }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/time", &actions, nil, argv, envp)
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
