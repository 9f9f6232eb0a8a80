import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads single keys from a descriptor, on the thread that calls ``readKey(_:)``, until a key
/// answers, the input ends, or ``wake()`` is called from elsewhere.
///
/// The wait is a `poll` on the input and on a pipe of the reader's own: ``wake()`` writes to the
/// pipe, so a cancelled task or a signal ends a read that no key would end. ``closePipe()`` closes
/// the pipe once the reading thread is done; a ``wake()`` after it does nothing.
final class KeyReader: Sendable {
    /// How a read ended.
    enum Ending: Equatable {
        /// A key that answers, with the answer it gave.
        case key(Bool)
        /// The input ended (`read` returned 0) or failed.
        case endOfInput
        /// ``wake()`` was called.
        case woken
    }

    /// The input.
    private let descriptor: Int32
    /// The pipe's read end, polled beside the input.
    private let wakeReadEnd: Int32
    /// The pipe's write end; -1 once closed. Written and closed under the lock, so a wake never
    /// writes to a descriptor number that was closed and reused.
    private let wakeWriteEnd: PThreadMutex<Int32>

    /// A reader of `descriptor`, or `nil` when no pipe can be made.
    init?(descriptor: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        self.wakeReadEnd = ends[0]
        self.wakeWriteEnd = PThreadMutex(ends[1])
    }

    /// Ends the read in progress (or the next one) with ``Ending/woken``.
    func wake() {
        wakeWriteEnd.withLock { end in
            guard end >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(end, &byte, 1)
        }
    }

    /// Closes the pipe; call it once no thread reads any more.
    func closePipe() {
        wakeWriteEnd.withLock { end in
            guard end >= 0 else { return }
            _ = close(end)
            end = -1
        }
        _ = close(wakeReadEnd)
    }

    /// Blocks until a byte that `answer` maps to a value arrives (other bytes are skipped), the
    /// input ends, or ``wake()`` is called.
    ///
    /// Escape (`0x1B`) on its own is the byte `0x1B` given to `answer`; an escape followed at once
    /// by more bytes is a key that sends a sequence (an arrow, a function key) and is skipped
    /// whole, so that pressing an arrow does not count as Escape.
    func readKey(_ answer: (UInt8) -> Bool?) -> Ending {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            switch wait(timeout: -1) {
            case .woken: return .woken
            case .failed: return .endOfInput
            case .timedOut, .ready: break
            }
            let count = fill(&buffer)
            guard count > 0 else {
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return .endOfInput
            }
            for index in 0..<count {
                let byte = buffer[index]
                if byte == 0x1B {
                    // The rest of this read is the sequence's; so is what follows within 50 ms.
                    if index + 1 < count { break }
                    switch wait(timeout: 50) {
                    case .woken: return .woken
                    case .ready:
                        _ = fill(&buffer)
                        continue
                    case .timedOut, .failed: break
                    }
                }
                if let value = answer(byte) { return .key(value) }
            }
        }
    }

    /// What a wait saw.
    private enum Readiness {
        case ready, woken, timedOut, failed
    }

    /// Waits up to `timeout` milliseconds (-1 for ever) for the input or the pipe.
    private func wait(timeout: Int32) -> Readiness {
        let events = Int16(POLLIN)
        var descriptors = [
            pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: wakeReadEnd, events: events, revents: 0),
        ]
        while true {
            let result = poll(&descriptors, 2, timeout)
            if result < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if result == 0 { return .timedOut }
            if descriptors[1].revents != 0 { return .woken }
            if descriptors[0].revents & Int16(POLLNVAL) != 0 { return .failed }
            // POLLIN, or POLLHUP/POLLERR: the read that follows says which (0 bytes: the end).
            return .ready
        }
    }

    /// One `read` of the input into `buffer`: its count, 0 at the end, -1 on an error.
    private func fill(_ buffer: inout [UInt8]) -> Int {
        buffer.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return -1 }
            return read(descriptor, base, bytes.count)
        }
    }
}
