import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The input terminal's mode while a prompt waits for one key: non-canonical (a key is read
/// without Enter), without echo, and with Ctrl-C a byte (`0x03`) rather than `SIGINT`.
///
/// The mode as it was is put back by ``restore()``, and by ``TerminalRestoration`` should the
/// process end first (exit, `SIGINT` or `SIGTERM` from elsewhere), which also runs the given
/// `interrupted` cleanup. Input typed before the mode was set is discarded, so a key pressed
/// before the question was shown does not answer it.
final class KeyboardMode: Sendable {
    private let descriptor: Int32
    /// The mode to put back; `nil` when the input is not a terminal (nothing was changed).
    private let original: termios?
    /// The key of the restoration registered for signals and exit.
    private let restorationKey: Int?
    /// Set by the first restoration, so the mode is put back once.
    private let restored = Atomic<Bool>(false)

    /// Sets the mode on `descriptor`; on anything but a terminal, changes nothing.
    ///
    /// - Parameters:
    ///   - descriptor: The input.
    ///   - interrupted: Run, after the mode is put back, when a signal arrived while the mode
    ///     was set and the process survived it (a handler of the program's took it).
    init(descriptor: Int32, interrupted: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else {
            original = nil
            restorationKey = nil
            return
        }
        var keys = saved
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &keys.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        // Registered before the change, so no moment has the mode changed and nothing to undo it.
        let originalMode = saved
        // The reader is woken only once the signal has been raised again and the process
        // survived it: woken before, the question would answer "abort" and the program could
        // exit on its own before the signal ends it as the signal says.
        let key = TerminalRestoration.register(
            {
                var mode = originalMode
                _ = tcsetattr(descriptor, TCSANOW, &mode)
            },
            afterSurvivedSignal: interrupted)
        guard tcsetattr(descriptor, TCSAFLUSH, &keys) == 0 else {
            TerminalRestoration.unregister(key)
            original = nil
            restorationKey = nil
            return
        }
        original = saved
        restorationKey = key
    }

    /// Puts the mode back; later calls do nothing.
    func restore() {
        guard restored.exchange(true, ordering: .acquiringAndReleasing) == false else { return }
        if let restorationKey { TerminalRestoration.unregister(restorationKey) }
        guard var mode = original else { return }
        _ = tcsetattr(descriptor, TCSANOW, &mode)
    }
}
