import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C and SIGTERM while a command runs.
///
/// The first signal cancels the command: requests stop, a download keeps the bytes it has in
/// its partial file, and parley-demo exits with 130 (SIGINT) or 143 (SIGTERM). A second signal
/// ends the process at once, with the status of that second signal.
///
/// The handler is installed before the console presenter draws anything. The presenter's own
/// handler, installed later, clears the live area and shows the cursor first, then hands the
/// signal on to this one. A signal handler may only do async-signal-safe work, so this one
/// writes the signal's number to a pipe, and a thread of its own reads it and cancels the
/// command.
enum Interruption {
    /// The pipe's write end, for the handler; -1 until installed.
    private static let pipeWriteEnd = Atomic<Int32>(-1)
    /// The first signal received, 0 for none.
    private static let firstSignal = Atomic<Int32>(0)

    /// The first signal received, if any.
    static var signal: Int32? {
        let number = firstSignal.load(ordering: .sequentiallyConsistent)
        return number == 0 ? nil : number
    }

    /// Installs the handler for SIGINT and SIGTERM; `onSignal` runs (on a thread of its own)
    /// after the first one.
    static func install(onSignal: @escaping @Sendable () -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        pipeWriteEnd.store(descriptors[1], ordering: .sequentiallyConsistent)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = { number in Interruption.arrived(number) }
            #else
                action.__sigaction_u.__sa_handler = { number in Interruption.arrived(number) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A parent may have started this process with the signals blocked (Foundation's
        // `Process` does); a blocked Ctrl-C would wait forever.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let readEnd = descriptors[0]
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                onSignal()
                return
            }
        }
        thread.name = "parley-demo-signals"
        thread.start()
    }

    /// The exit status for the signal received.
    static func status(for number: Int32) -> ExitStatus {
        number == SIGTERM ? .terminated : .interrupted
    }

    /// The handler: async-signal-safe work only (an atomic exchange, `write`, `_exit`).
    private static func arrived(_ number: Int32) {
        let (exchanged, _) = firstSignal.compareExchange(
            expected: 0, desired: number, ordering: .sequentiallyConsistent)
        guard exchanged else {
            // A second signal: stop waiting for the command to wind down.
            _exit(status(for: number).rawValue)
        }
        // `write` may set errno, which belongs to the code this handler interrupted.
        let savedErrno = errno
        defer { errno = savedErrno }
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(pipeWriteEnd.load(ordering: .sequentiallyConsistent), &byte, 1)
    }
}
