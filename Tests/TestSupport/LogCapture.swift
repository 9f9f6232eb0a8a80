package import InMemoryLogging
package import Logging

/// Loggers whose messages are kept, so a test can assert on what was logged.
///
/// Built on swift-log's `InMemoryLogHandler`; every logger made by one capture writes to it.
package struct LogCapture: Sendable {
    /// The handler every logger of this capture writes to.
    package let handler = InMemoryLogHandler()

    /// A capture with nothing logged yet.
    package init() {}

    /// A logger that keeps every message at `level` or above.
    package func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in handler }
        logger.logLevel = level
        return logger
    }

    /// The messages logged so far, in order.
    package var messages: [String] {
        handler.entries.map { "\($0.message)" }
    }

    /// The messages logged so far at exactly `level`, in order.
    package func messages(at level: Logger.Level) -> [String] {
        handler.entries.filter { $0.level == level }.map { "\($0.message)" }
    }
}
