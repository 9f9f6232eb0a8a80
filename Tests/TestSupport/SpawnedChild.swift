package import Foundation
import Glibc
import Transport

/// A child process, started the way every test starts one: `posix_spawn`, the signal state a
/// shell gives a program (``SignalReset``), and no descriptor of this process but the three
/// standard streams.
///
/// Foundation's `Process` is not used: on Linux it starts a child with every signal blocked,
/// and it has crashed this test process with a bad pointer inside `run()` when several tests
/// started children at once.
package final class SpawnedChild: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose other end this process holds (``input``, ``output``, ``errors``).
        case pipe
        /// A file, read for standard input; created or truncated for output and errors.
        case file(String)
        /// For standard output only: wherever standard error goes.
        case standardError
        /// This process's own.
        case inherited
    }

    /// The child's process id; it is never signalled after ``waitForExit()`` reaped it.
    package let pid: pid_t
    /// The write end of the child's standard input, when it is a pipe.
    package let input: FileHandle?
    /// The read end of the child's standard output, when it is a pipe.
    package let output: FileHandle?
    /// The read end of the child's standard error, when it is a pipe.
    package let errors: FileHandle?
    /// The raw wait status, once the child is reaped.
    private let reaped = PThreadMutex<Int32?>(nil)

    private init(pid: pid_t, input: FileHandle?, output: FileHandle?, errors: FileHandle?) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errors = errors
    }

    /// A child dropped while it runs (a test that threw) is killed and reaped, so that it
    /// neither runs on nor stays a zombie.
    deinit {
        if isRunning { kill() }
    }

    /// Starts `path` with `arguments`.
    ///
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments.
    ///   - environment: Variables set over this process's own; a `nil` value removes one.
    ///   - input: Standard input; `/dev/null` by default.
    ///   - output: Standard output; `/dev/null` by default.
    ///   - errors: Standard error; `/dev/null` by default.
    ///   - newProcessGroup: Whether the child leads a process group of its own, so that a
    ///     signal to `-pid` reaches what it starts too.
    /// - Returns: The running child.
    package static func start(
        _ path: String, arguments: [String], environment: [String: String?] = [:], input: Stream = .null,
        output: Stream = .null, errors: Stream = .null, newProcessGroup: Bool = false
    ) throws -> SpawnedChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // This process's ends of the pipes, and the child's ends, closed here once it started.
        var ours: [Int32: Int32] = [:]
        var theirs: [Int32] = []
        defer { for descriptor in theirs { close(descriptor) } }
        func route(_ stream: Stream, to target: Int32) throws {
            switch stream {
            case .inherited:
                break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let file):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, file, flags, 0o600)
            case .standardError:
                guard target == 1 else { throw StartFailure("only standard output can go where standard error goes") }
                posix_spawn_file_actions_adddup2(&actions, 2, 1)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw StartFailure("pipe: \(String(cString: strerror(errno)))") }
                // Close-on-exec, so that no other program this process starts holds the pipe
                // open (a child started here in between closes it with the rest); dup2 clears
                // the flag on the child's copy.
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (child, parent) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                ours[target] = parent
                theirs.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
            }
        }
        // Standard error before standard output, which may follow it.
        do {
            try route(input, to: 0)
            try route(errors, to: 2)
            try route(output, to: 1)
        } catch {
            for descriptor in ours.values { close(descriptor) }
            throw error
        }
        // After the routing: the pipes' child ends are above standard error too.
        closeInheritedDescriptors(&actions)

        var attributes = SignalReset(newProcessGroup: newProcessGroup)
        defer { attributes.destroy() }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes.value, argv, envp)
        guard spawned == 0 else {
            for descriptor in ours.values { close(descriptor) }
            throw StartFailure("could not start \(path): \(String(cString: strerror(spawned)))")
        }
        let handle = { (target: Int32) in ours[target].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) } }
        return SpawnedChild(pid: pid, input: handle(0), output: handle(1), errors: handle(2))
    }

    /// Sends `signal` to the child (to its process group with `group`), unless it was reaped:
    /// its process id may then belong to another process.
    package func send(_ signal: Int32, group: Bool = false) {
        reaped.withLock { status in
            if status == nil { Glibc.kill(group ? -pid : pid, signal) }
        }
    }

    /// A child that could not be started, and why.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// How a child ended.
    package struct Termination: Sendable, Equatable {
        /// Its exit status, when it exited.
        package let exitStatus: Int32?
        /// The signal that ended it, when one did.
        package let signal: Int32?

        /// The status a shell reports: the exit status, or 128 plus the signal.
        package var shellStatus: Int32 { signal.map { 128 + $0 } ?? exitStatus ?? -1 }

        /// From a wait status; a child reaped elsewhere has neither.
        init(waitStatus: Int32?) {
            guard let status = waitStatus else {
                (exitStatus, signal) = (nil, nil)
                return
            }
            let signal = status & 0x7F
            (self.exitStatus, self.signal) = signal == 0 ? ((status >> 8) & 0xFF, nil) : (nil, signal)
        }
    }

    /// Whether the child still runs; one that has ended is reaped.
    package var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the child to end, blocking the calling thread (call it from ``onOwnThread(_:)``
    /// in a test), and says how it ended. Later calls say the same.
    @discardableResult
    package func waitForExit() -> Termination {
        // Wait without reaping and outside the lock, so that ``send(_:group:)`` never waits
        // behind it; the reap then happens under the lock, where no signal can reach a process
        // that took over the id.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return Termination(waitStatus: reap(blocking: true))
    }

    /// Kills the child with `SIGKILL` and reaps it.
    ///
    /// - Returns: Whether the signal ended it; `false` when it had ended by itself first.
    @discardableResult
    package func kill() -> Bool {
        send(SIGKILL)
        return waitForExit().signal == SIGKILL
    }

    /// Reaps the child if it has ended (or, `blocking`, once it ends) and returns its wait
    /// status; `nil` while it runs.
    private func reap(blocking: Bool) -> Int32? {
        reaped.withLock { recorded in
            if recorded == nil {
                var status: Int32 = 0
                var result: pid_t
                repeat {
                    result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
                } while result < 0 && errno == EINTR
                if result == pid { recorded = status }
            }
            return recorded
        }
    }
}

/// Spawn attributes that give a child the signal state a shell gives it: nothing blocked, and
/// `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGCHLD` and `SIGPIPE` at their default dispositions.
///
/// The threads of this test process (Foundation's among them) run with signals blocked, and a
/// child inherits the blocked set of the thread that starts it: a child that cannot receive
/// `SIGTERM` never stops, and one with `SIGPIPE` blocked would hide the very signal a test looks
/// for.
private struct SignalReset {
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
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
}
