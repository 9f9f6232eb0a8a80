import Foundation
import Synchronization
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts the terminal back (live area cleared, cursor shown) however the process ends: a
/// normal exit, `exit(_:)` after an error, `SIGINT` (Ctrl-C), `SIGTERM`, or `SIGPIPE` (the
/// reader of standard output went away, as with `| head`).
///
/// Presenters that redraw register a cleanup while they have something drawn. A signal is
/// caught by a handler that only writes the signal's number to a pipe (the one thing a signal
/// handler may safely do); a thread of its own reads the pipe, runs the cleanups (which may
/// take locks and write), puts back the disposition the signal had before, and raises it
/// again, so the process still ends as the signal says (a shell sees 130 after Ctrl-C) and a
/// handler the program installed earlier still runs. A signal the process ignores (a
/// background job's `SIGINT`, a `SIGPIPE` a supervisor set to be ignored) is left alone.
///
/// `SIGPIPE` is raised in the thread whose write failed, and once the handler returns that
/// write fails with `EPIPE`: the writer must not treat that as fatal on its own (Foundation's
/// `FileHandle.write` traps), which is what ``StandardStreams`` is for.
enum TerminalRestoration {
    private struct State: Sendable {
        var cleanups: [Int: @Sendable () -> Void] = [:]
        /// Run after a signal the process survived (its earlier handler did not end it).
        var afterSurvivedSignal: [Int: @Sendable () -> Void] = [:]
        var nextKey = 0
        var installed = false
    }

    private static let state = PThreadMutex(State())
    /// Held while cleanups run, so that a second caller of ``restoreAll()`` (the writer that
    /// met `EPIPE` while the signal's thread restores) returns only once the terminal is back.
    private static let restoring = PThreadMutex(())
    /// The pipe's write end, for the signal handler; -1 until installed.
    private static let signalPipe = Atomic<Int32>(-1)
    /// The signals watched.
    private static let watchedSignals: [Int32] = [SIGINT, SIGTERM, SIGPIPE]

    /// Registers `cleanup`; returns the key to unregister it with.
    ///
    /// - Parameters:
    ///   - cleanup: Puts something back; runs at exit, or on a signal before it is raised again.
    ///   - afterSurvivedSignal: Runs after a signal has been raised again and the process is
    ///     still alive (a handler the program installed took it): work that must not race the
    ///     signal's own end of the process, such as waking a reader to answer a question.
    static func register(
        _ cleanup: @escaping @Sendable () -> Void, afterSurvivedSignal: (@Sendable () -> Void)? = nil
    ) -> Int {
        let (key, install) = state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.cleanups[key] = cleanup
            state.afterSurvivedSignal[key] = afterSurvivedSignal
            defer { state.installed = true }
            return (key, !state.installed)
        }
        if install { installHandlers() }
        return key
    }

    /// Removes a cleanup.
    static func unregister(_ key: Int) {
        state.withLock { state in
            state.cleanups[key] = nil
            state.afterSurvivedSignal[key] = nil
        }
    }

    /// Runs and removes every cleanup; returns the work to do should a signal be survived.
    ///
    /// A call made while another runs the cleanups waits for them to finish.
    @discardableResult
    static func restoreAll() -> [@Sendable () -> Void] {
        restoring.withLock { _ in
            let (cleanups, survivors) = state.withLock { state in
                defer {
                    state.cleanups = [:]
                    state.afterSurvivedSignal = [:]
                }
                return (Array(state.cleanups.values), Array(state.afterSurvivedSignal.values))
            }
            for cleanup in cleanups { cleanup() }
            return survivors
        }
    }

    /// Whether the process started with `SIGPIPE` ignored: 0 not recorded, 1 no, 2 yes.
    private static let startedIgnoringSIGPIPE = Atomic<Int8>(0)

    /// Records whether the process started with `SIGPIPE` ignored, before anything changes it
    /// (SwiftNIO ignores it for the whole process on Linux when it opens its first socket).
    static func recordStartingDisposition() {
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0 else { return }
        startedIgnoringSIGPIPE.store(isIgnored(current) ? 2 : 1, ordering: .sequentiallyConsistent)
    }

    /// Ends the process because the reader of standard output went away, as `cat` ends: the
    /// terminal put back first, then killed by `SIGPIPE` (a shell reports 141), or, when the
    /// process started with `SIGPIPE` ignored (a disposition inherited across `exec`), exit
    /// status 141.
    ///
    /// Called by the writer that met `EPIPE`. The signal's own thread may be restoring at the
    /// same moment; ``restoreAll()`` waits for it, so the process never ends half-restored.
    static func endAfterBrokenPipe() -> Never {
        restoreAll()
        let ignoredAtStart: Bool
        switch startedIgnoringSIGPIPE.load(ordering: .sequentiallyConsistent) {
        case 1: ignoredAtStart = false
        case 2: ignoredAtStart = true
        default:
            var current = sigaction()
            ignoredAtStart = sigaction(SIGPIPE, nil, &current) == 0 && isIgnored(current)
        }
        if ignoredAtStart { _exit(128 + SIGPIPE) }
        // The default action ends the process; whatever handler was there (this type's) has
        // nothing left to do, the terminal being back.
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = SIG_DFL
        #else
            action.__sigaction_u.__sa_handler = SIG_DFL
        #endif
        sigaction(SIGPIPE, &action, nil)
        // Pending already when the writing thread blocks it (threads Foundation starts block
        // every signal): unblocking delivers it.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Whether `action` ignores its signal.
    private static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
            address(of: action.__sigaction_handler.sa_handler) == address(of: SIG_IGN)
        #else
            address(of: action.__sigaction_u.__sa_handler) == address(of: SIG_IGN)
        #endif
    }

    private static func installHandlers() {
        atexit { TerminalRestoration.restoreAll() }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        signalPipe.store(descriptors[1], ordering: .sequentiallyConsistent)

        var previous: [Int32: sigaction] = [:]
        for signalNumber in watchedSignals {
            var old = sigaction()
            guard sigaction(signalNumber, nil, &old) == 0 else { continue }
            if isIgnored(old) { continue }
            previous[signalNumber] = old
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = { number in
                    TerminalRestoration.signalArrived(number)
                }
            #else
                action.__sigaction_u.__sa_handler = { number in TerminalRestoration.signalArrived(number) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }

        let readEnd = descriptors[0]
        let saved = previous
        let thread = Thread {
            while true {
                var number: UInt8 = 0
                let count = read(readEnd, &number, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let survivors = restoreAll()
                let signalNumber = Int32(number)
                if var old = saved[signalNumber] { sigaction(signalNumber, &old, nil) }
                // This thread blocks signals (Foundation's threads start with every signal
                // blocked), so the signal raised here would stay pending: unblock it first.
                var set = sigset_t()
                sigemptyset(&set)
                sigaddset(&set, signalNumber)
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                raise(signalNumber)
                // Still here: the program's own handler took the signal.
                for survivor in survivors { survivor() }
            }
        }
        thread.name = "parley-feedback-signals"
        thread.start()
    }

    /// A handler's address, to compare it with `SIG_IGN` (function pointers are not `Equatable`).
    private static func address(of handler: (@convention(c) (Int32) -> Void)?) -> Int {
        handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    }

    /// The signal handler: async-signal-safe, it only writes the signal's number to the pipe.
    private static func signalArrived(_ number: Int32) {
        // The interrupted code may be about to read errno.
        let savedErrno = errno
        defer { errno = savedErrno }
        var byte = UInt8(truncatingIfNeeded: number)
        let descriptor = signalPipe.load(ordering: .relaxed)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, &byte, 1)
    }
}
