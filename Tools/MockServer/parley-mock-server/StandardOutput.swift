import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's one line on standard output, written so that a reader that has gone away ends
/// the process as it ends `cat`, never with a trap.
///
/// `FileHandle.write` traps on `EPIPE`. This writes through `write(2)` (continuing an
/// interrupted or partial write), and on `EPIPE` ends the process with `SIGPIPE`, which a
/// shell reports as 141; when `SIGPIPE` is ignored (a disposition inherited across `exec`), it
/// exits with status 141. The server depends on nothing of Parley's library, so it has this
/// small writer of its own rather than FeedbackConsole's `StandardStreams`.
enum StandardOutput {
    /// Writes `text`, every byte; returns `false` when standard output failed for another
    /// reason than a reader that went away (a closed descriptor).
    @discardableResult
    static func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return systemWrite(STDOUT_FILENO, base + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EPIPE {
                endAfterBrokenPipe()
            } else {
                return false
            }
        }
        return true
    }

    /// Whether the process started with `SIGPIPE` ignored, as ``recordStartingDisposition()``
    /// found it: 0 not recorded, 1 no, 2 yes.
    private static let startedIgnoring = Atomic<Int8>(0)

    /// Records whether the process started with `SIGPIPE` ignored. Call it before the server
    /// starts: SwiftNIO ignores `SIGPIPE` for the whole process on Linux when it opens its first
    /// socket, and only the disposition the process started with tells whether a shell expects
    /// the signal.
    static func recordStartingDisposition() {
        startedIgnoring.store(isIgnored() ? 2 : 1, ordering: .sequentiallyConsistent)
    }

    /// Whether `SIGPIPE` is ignored now.
    private static func isIgnored() -> Bool {
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        #if canImport(Glibc)
            let handler = current.__sigaction_handler.sa_handler
        #else
            let handler = current.__sigaction_u.__sa_handler
        #endif
        return address(of: handler) == address(of: SIG_IGN)
    }

    /// Ends the process as `SIGPIPE` ends it, or with status 141 when the process started with
    /// the signal ignored.
    private static func endAfterBrokenPipe() -> Never {
        let recorded = startedIgnoring.load(ordering: .sequentiallyConsistent)
        if !(recorded == 0 ? isIgnored() : recorded == 2) {
            signal(SIGPIPE, SIG_DFL)
            // Blocked in this thread (a parent may start the process so): unblocking delivers
            // the pending signal, and `raise` covers a signal that was not pending.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(SIGPIPE)
        }
        _exit(128 + SIGPIPE)
    }

    /// A handler's address, to compare it with `SIG_IGN` (function pointers are not `Equatable`).
    private static func address(of handler: (@convention(c) (Int32) -> Void)?) -> Int {
        handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    }

    #if canImport(Glibc)
        private static let systemWrite = Glibc.write
    #else
        private static let systemWrite = Darwin.write
    #endif
}
