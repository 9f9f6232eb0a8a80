import Forms
import Logging
import Transport

/// Prints each request as the `curl` command that reproduces it (credentials redacted), for
/// `--verbose`.
struct CurlCommandPlugin: Plugin {
    /// Where the commands go.
    let logger: Logger

    func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
        logger.debug("\(request.curlCommand())")
        return .proceed
    }
}
