import Foundation
import ParleyObservability
import Transport
import TransportCurl

/// Sends one request through the telemetry links (no backend bootstrapped) to the httpbin at
/// the URL given as the only argument.
///
/// Exits 0 when httpbin answers 200, 1 otherwise.
@main
struct ObservabilityConsumer {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            print("usage: parley-observability-consumer HTTPBIN-URL")
            exit(2)
        }
        do {
            let curl = try CurlTransport()
            let transport = MiddlewareTransport(curl, middleware: [RequestTelemetry(), AttemptTelemetry()])
            let response = try await transport.data(
                for: try TransportRequest(method: .get, url: arguments[1] + "/get?consumer=observability"))
            print("httpbin answered \(response.status.code)")
            await curl.shutdown()
            exit(response.status == .ok ? 0 : 1)
        } catch {
            print("parley-observability-consumer: error: \(error)")
            exit(1)
        }
    }
}
