import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a console presenter writes, and what it knows about it.
///
/// ``standardError`` is the one applications use; tests build their own around a virtual
/// terminal or a buffer, with the capabilities and width they want to exercise.
public struct ConsoleOutput: Sendable {
    /// Writes text; called with the presenter's lock held, so writes never interleave.
    public var write: @Sendable (String) -> Void
    /// Whether the output is a terminal.
    public var isTerminal: Bool
    /// The width in columns now, or `nil` when unknown (80 is assumed).
    public var columns: @Sendable () -> Int?
    /// The height in rows now, or `nil` when unknown (the live area is then kept to 24 rows).
    public var rows: @Sendable () -> Int?
    /// The process environment the capabilities are read from.
    public var environment: [String: String]

    /// Creates an output.
    ///
    /// - Parameters:
    ///   - isTerminal: Whether it is a terminal.
    ///   - environment: The environment to read `TERM`, `CI`, `NO_COLOR`, `FORCE_COLOR` from.
    ///   - columns: The current width; `nil` for unknown.
    ///   - rows: The current height; `nil` for unknown.
    ///   - write: Writes text.
    public init(
        isTerminal: Bool, environment: [String: String], columns: @escaping @Sendable () -> Int? = { nil },
        rows: @escaping @Sendable () -> Int? = { nil }, write: @escaping @Sendable (String) -> Void
    ) {
        self.isTerminal = isTerminal
        self.environment = environment
        self.columns = columns
        self.rows = rows
        self.write = write
    }

    /// Standard error: feedback goes there, so that standard output holds only results and
    /// `command > file` stays clean.
    public static var standardError: ConsoleOutput {
        ConsoleOutput(
            isTerminal: isatty(STDERR_FILENO) == 1,
            environment: ProcessInfo.processInfo.environment,
            columns: { windowSize(of: STDERR_FILENO)?.columns ?? environmentColumns() },
            rows: { windowSize(of: STDERR_FILENO).flatMap { $0.rows > 0 ? $0.rows : nil } },
            write: { writeAll($0, to: STDERR_FILENO) })
    }

    /// The size of the terminal on `descriptor`, from `TIOCGWINSZ`.
    static func windowSize(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        #if canImport(Glibc)
            let request = UInt(TIOCGWINSZ)
        #else
            let request = TIOCGWINSZ
        #endif
        guard ioctl(descriptor, request, &size) == 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// `COLUMNS`, when set to a number.
    static func environmentColumns() -> Int? {
        ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Writes every byte of `text`, retrying interrupted and partial writes; gives up silently
    /// on any other error (a closed standard error must not stop the program).
    static func writeAll(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                #if canImport(Glibc)
                    return Glibc.write(descriptor, base + offset, buffer.count - offset)
                #else
                    return Darwin.write(descriptor, base + offset, buffer.count - offset)
                #endif
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
