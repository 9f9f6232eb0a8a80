import Forms
import Logging
import Transport

/// Prints each request as the `curl` command that reproduces it (credentials redacted), for
/// `--verbose`.
struct CurlCommandPlugin: Plugin {
    /// Where the commands go.
    let logger: Logger

    /// Logs the request as the earlier plugins left it (this one is added last).
    func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
        logger.debug("\(request.curlCommand())")
    }
}
