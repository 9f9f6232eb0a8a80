public import Downloads
import HTTPTypes
public import Logging
public import Transport

/// Logs every request and its outcome through swift-log, with credentials redacted: in
/// header fields, and in query parameters whose names look like credentials.
///
/// Added for you when ``ClientConfiguration/isLoggingEnabled`` is on; add it to
/// ``ClientConfiguration/plugins`` yourself to place it among other plugins.
public struct LoggingPlugin: Plugin {
    /// Where the log goes.
    public let logger: Logger

    /// Creates the plugin.
    ///
    /// - Parameter logger: Where the log goes.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs the request line at info level and its headers (redacted) at debug level.
    public func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
        logger.info("→ \(request.head.method) \(LogRedaction.redactedURL(request.url))")
        logger.debug("\(request.head.headerFields.redactedForLogging)")
    }

    /// Logs the status at info level and the headers (redacted) at debug level.
    public func didReceive(_ response: DataResponse, form: any Formable) async {
        logger.info(
            "← \(response.status.code) \(LogRedaction.redactedURL(response.url)) (\(response.body.count) bytes)")
        logger.debug("\(response.head.headerFields.redactedForLogging)")
    }

    /// Logs failures at warning level, and a request a plugin or a middleware stopped on
    /// purpose (`RequestStop`) at info level, as no failure.
    public func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {
        if case .failure(let stop as RequestStop) = result {
            logger.info("⏹ \(LogRedaction.redactedURL(form.path)): \(stop.message)")
        } else if case .failure(let error) = result {
            logger.warning("✕ \(LogRedaction.redactedURL(form.path)): \(RequestFailure(error).message)")
        }
    }

    /// Logs the finished file at info level and failures at warning level.
    public func afterDownload(_ result: Result<FileDownload.Summary, any Error>, form: any Formable) async {
        switch result {
        case .success(let summary):
            let resumed = summary.resumedFrom > 0 ? ", resumed from \(summary.resumedFrom)" : ""
            logger.info(
                "↓ \(LogRedaction.redactedURL(form.path)) → \(summary.destination) (\(summary.byteCount) bytes\(resumed))"
            )
        case .failure(let error):
            logger.warning("✕ \(LogRedaction.redactedURL(form.path)): \(RequestFailure(error).message)")
        }
    }
}
