import Foundation
import Logging
import ParleyServiceLifecycle
import ServiceLifecycle
import Transport
import TransportCurl

/// Runs the transport as a service of a `ServiceGroup`, sends one request through it to the
/// httpbin at the URL given as the only argument, then shuts the group down gracefully.
///
/// Exits 0 when httpbin answers 200 and the group ends, 1 otherwise.
@main
struct ServiceLifecycleConsumer {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            print("usage: parley-service-lifecycle-consumer HTTPBIN-URL")
            exit(2)
        }
        do {
            let transport = try CurlTransport()
            let group = ServiceGroup(
                services: [CurlTransportService(transport, gracePeriod: .seconds(5))],
                gracefulShutdownSignals: [.sigterm], logger: Logger(label: "parley.consumer"))
            async let running: Void = group.run()
            let response = try await transport.data(
                for: try TransportRequest(method: .get, url: arguments[1] + "/get?consumer=service-lifecycle"))
            print("httpbin answered \(response.status.code)")
            await group.triggerGracefulShutdown()
            try await running
            exit(response.status == .ok ? 0 : 1)
        } catch {
            print("parley-service-lifecycle-consumer: error: \(error)")
            exit(1)
        }
    }
}
