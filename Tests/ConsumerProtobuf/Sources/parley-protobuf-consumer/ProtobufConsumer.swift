import Forms
import Foundation
import ParleyProtobuf
import SwiftProtobuf
import TransportCurl

/// Sends one message as a form's body to httpbin's `/anything`, which answers JSON with the
/// bytes it received in `data`: as text when they are UTF-8, else as a
/// `data:application/octet-stream;base64,…` URL. The consumer decodes them back as the message
/// it sent, with well-known types only (no generated code of its own), and checks that the
/// decoder refuses the JSON answer itself for its media type.
///
/// Exits 0 when both hold, 1 otherwise.
@main
struct ProtobufConsumer {
    struct Echo: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    struct AnythingForm: MessageFormable {
        var message: Google_Protobuf_StringValue
        var path: String { "/anything" }
    }

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            print("usage: parley-protobuf-consumer HTTPBIN-URL")
            exit(2)
        }
        do {
            let curl = try CurlTransport()
            let echo = Echo(clientConfiguration: ClientConfiguration(transport: curl, baseURL: arguments[1]))
            let sent = Google_Protobuf_StringValue("consumer")
            let response = try await echo.request(AnythingForm(message: sent)).value
            await curl.shutdown()

            let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            let dataURL = object?["data"] as? String ?? ""
            let received: Data
            if dataURL.hasPrefix("data:"), let comma = dataURL.firstIndex(of: ",") {
                received = Data(base64Encoded: String(dataURL[dataURL.index(after: comma)...])) ?? Data()
            } else {
                received = Data(dataURL.utf8)
            }
            let decoded = try MessageDecoder().decode(Google_Protobuf_StringValue.self, from: received)
            let refused = (try? MessageDecoder().decode(Google_Protobuf_StringValue.self, from: response)) == nil
            print("httpbin answered \(response.status.code); received \(received.count) bytes: \(decoded.value)")
            exit(decoded == sent && refused ? 0 : 1)
        } catch {
            print("parley-protobuf-consumer: error: \(error)")
            exit(1)
        }
    }
}
