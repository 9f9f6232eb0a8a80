public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command-line program's own writes to standard output and standard error, beside the
/// console's feedback, made so that the program ends as `cat` does when its reader goes away.
///
/// `program | head -1` closes the pipe after one line. The next write to standard output then
/// fails with `EPIPE`, after the kernel sent `SIGPIPE`; `FileHandle.write` would stop the
/// program with a trap and a backtrace. `writeOutput(_:)` instead ends the process
/// the way `cat` ends: the terminal put back first (a console's live area on standard error
/// cleared and its cursor shown), then killed by `SIGPIPE`, which a shell reports as status
/// 141. When the process started with `SIGPIPE` ignored (a disposition inherited across
/// `exec`, from some supervisors), it exits with status 141 instead. Nothing is printed either
/// way: the reader asked for no more.
///
/// A program that also runs SwiftNIO (a server, an HTTP client on it) calls
/// ``recordStartingDisposition()`` first thing in `main`: on Linux, SwiftNIO ignores `SIGPIPE`
/// for the whole process when it opens its first socket, and only the disposition the process
/// started with tells whether a shell expects the signal.
///
/// ```swift
/// for chunk in lines {
///     try StandardStreams.writeOutput(chunk + "\n")   // `| head -1` ends the program here
/// }
/// ```
///
/// Writes go through `write(2)` whole: an interrupted or partial write is continued, so
/// a result is never cut in the middle by a signal.
public enum StandardStreams {
    /// Records whether the process started with `SIGPIPE` ignored, which decides how a reader
    /// that went away ends it (see ``StandardStreams``). Call it first thing in `main`, before
    /// anything can change the disposition; without it, the disposition at the moment of the
    /// broken pipe decides.
    public static func recordStartingDisposition() {
        TerminalRestoration.recordStartingDisposition()
    }

    /// Writes `data` to standard output, every byte, unbuffered.
    ///
    /// - Parameter data: The bytes.
    /// - Throws: ``StandardOutputError`` when standard output fails for another reason than a
    ///   reader that went away (a full disk, a closed descriptor). A reader that went away ends
    ///   the process (see ``StandardStreams``): this method does not return then.
    public static func writeOutput(_ data: Data) throws(StandardOutputError) {
        let failure: Int32? = data.withUnsafeBytes { writeAll($0, to: STDOUT_FILENO) }
        guard let failure else { return }
        if failure == EPIPE { TerminalRestoration.endAfterBrokenPipe() }
        throw StandardOutputError(errorNumber: failure)
    }

    /// Writes `text` to standard output as UTF-8, every byte, unbuffered.
    ///
    /// - Parameter text: The text, with its own line breaks.
    /// - Throws: ``StandardOutputError``, as `writeOutput(_:)`.
    public static func writeOutput(_ text: String) throws(StandardOutputError) {
        try writeOutput(Data(text.utf8))
    }

    /// Writes `text` to standard error as UTF-8, for lines outside a console's live area.
    ///
    /// A failure is ignored: messages about the program must not stop it. A closed pipe still
    /// raises `SIGPIPE`, which ends the process (after the terminal is put back) unless it is
    /// ignored.
    ///
    /// - Parameter text: The text, with its own line breaks.
    public static func writeError(_ text: String) {
        _ = Data(text.utf8).withUnsafeBytes { writeAll($0, to: STDERR_FILENO) }
    }

    /// Writes every byte of `bytes` to `descriptor`; returns `nil`, or the `errno` of the
    /// write that failed.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // A descriptor another program left non-blocking: wait until it takes more.
                var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, -1)
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
