import Foundation
import HTTPTypes
import OpenAPIRuntime
import ParleyOpenAPI
import TransportCurl

/// Sends one request through the OpenAPI transport, as a generated client does, to the httpbin
/// at the URL given as the only argument.
///
/// Exits 0 when httpbin answers 200 with a body, 1 otherwise.
@main
struct OpenAPIConsumer {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let serverURL = URL(string: arguments[1]) else {
            print("usage: parley-openapi-consumer HTTPBIN-URL")
            exit(2)
        }
        do {
            let curl = try CurlTransport()
            let transport: any ClientTransport = OpenAPITransport(curl)
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/get?consumer=openapi")
            let (response, body) = try await transport.send(
                request, body: nil, baseURL: serverURL, operationID: "get")
            let bytes = try await Data(collecting: body ?? HTTPBody(), upTo: 1 << 20)
            print("httpbin answered \(response.status.code) with \(bytes.count) bytes")
            await curl.shutdown()
            exit(response.status == .ok && !bytes.isEmpty ? 0 : 1)
        } catch {
            print("parley-openapi-consumer: error: \(error)")
            exit(1)
        }
    }
}
