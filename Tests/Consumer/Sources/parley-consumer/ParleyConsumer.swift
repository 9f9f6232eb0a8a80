import Forms
import Foundation
import Mapping
import TransportCurl

/// Sends one form to the httpbin at the URL given as the only argument and prints the URL
/// httpbin says it was asked for, read at the key path `url` of its JSON answer.
///
/// Exits 0 when that URL ends in `/get?consumer=parley`, 1 otherwise.
@main
struct ParleyConsumer {
    struct EchoForm: RequestFormable {
        var path: String { "/get" }
        var parameters: Parameters { ["consumer": "parley"] }
    }

    struct Client: Requestable {}

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            print("usage: parley-consumer HTTPBIN-URL")
            exit(2)
        }
        do {
            let transport = try CurlTransport()
            try ClientSystem.bootstrap(ClientConfiguration(transport: transport, baseURL: arguments[1]))
            let url = try await Client().request(EchoForm()).decode(String.self, at: "url").value
            print("httpbin saw \(url)")
            await transport.shutdown()
            exit(url.hasSuffix("/get?consumer=parley") ? 0 : 1)
        } catch {
            print("parley-consumer: error: \(error)")
            exit(1)
        }
    }
}
