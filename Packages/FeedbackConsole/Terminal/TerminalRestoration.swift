import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts the terminal back (live area cleared, cursor shown) however the process ends: a
/// normal exit, `exit(_:)` after an error, `SIGINT` (Ctrl-C) or `SIGTERM`.
///
/// Presenters that redraw register a cleanup while they have something drawn. The signals are
/// watched with Dispatch signal sources, so the cleanup runs on an ordinary thread (it may take
/// locks and write), after which the signal's default action is restored and the signal raised
/// again: the process still ends as the signal says (a shell sees 130 after Ctrl-C).
enum TerminalRestoration {
    private struct State: Sendable {
        var cleanups: [Int: @Sendable () -> Void] = [:]
        var nextKey = 0
        var installed = false
    }

    private static let state = Mutex(State())
    /// The signal sources, kept for the life of the process.
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Registers `cleanup`; returns the key to unregister it with.
    static func register(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        let (key, install) = state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.cleanups[key] = cleanup
            defer { state.installed = true }
            return (key, !state.installed)
        }
        if install { installHandlers() }
        return key
    }

    /// Removes a cleanup.
    static func unregister(_ key: Int) {
        _ = state.withLock { $0.cleanups.removeValue(forKey: key) }
    }

    /// Runs and removes every cleanup.
    static func restoreAll() {
        let cleanups = state.withLock { state in
            defer { state.cleanups = [:] }
            return Array(state.cleanups.values)
        }
        for cleanup in cleanups { cleanup() }
    }

    private static func installHandlers() {
        atexit { TerminalRestoration.restoreAll() }
        let queue = DispatchQueue(label: "parley.feedback.signals")
        // Made inside the lock: the sources are not Sendable, and live in it from the start.
        sources.withLock { sources in
            for signalNumber in [SIGINT, SIGTERM] {
                // The default action would end the process before the source's handler ran.
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    restoreAll()
                    signal(signalNumber, SIG_DFL)
                    raise(signalNumber)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
