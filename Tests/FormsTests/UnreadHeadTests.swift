import Forms
import Foundation
import HTTPTypes
import Mapping
import Synchronization
import Testing
import Transport

/// A business request whose caller reads the decoded value and the metrics only leaves the
/// engine's response head as the lines it received: neither the retries' judgement, the
/// handle's `ResponseInfo` nor the decoder builds its fields, which cost about a twentieth of
/// such a request. A reader of the head still gets every field, and a decoding error still
/// names the `Content-Type`.
///
/// Checked to fail with the three reads as they were (the retries' judgement reading
/// `response.head` for the status, `ResponseInfo` holding a built head, `ResponseInput` copying
/// the head's fields): the head is then built before anyone reads it.
@Suite struct UnreadHeadTests {
    struct Forecast: Decodable, Sendable, Equatable {
        let location: String
    }

    struct Client: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    struct Forecasts: RequestFormable {
        let path = "/forecast"
    }

    // Made for each test, not kept for the process: the leak checker cannot see a process-wide
    // `Data`'s storage through its tagged pointer.
    private static var envelope: Data { Data(#"{"code":200,"message":"ok","data":{"location":"Lyon"}}"#.utf8) }

    private static func client(_ transport: ReceivedHeadTransport) -> Client {
        // The default retry policy: retries judge every answer's status.
        Client(clientConfiguration: ClientConfiguration(transport: transport, baseURL: "https://example.com"))
    }

    @Test func anAwaitedDecodingLeavesTheHeadUnbuiltUntilItIsRead() async throws {
        let transport = ReceivedHeadTransport(body: Self.envelope, contentType: "application/json")
        let handle = Self.client(transport).request(Forecasts()).decodeEnvelope(Forecast.self)

        #expect(try await handle.value == Forecast(location: "Lyon"))
        let response = try #require(await handle.response)
        #expect(response.url == "https://example.com/forecast")
        #expect(transport.made.count == 1)
        #expect(transport.made.allSatisfy { !$0.isBuilt }, "no layer built the head")

        #expect(response.head.status == .ok)
        #expect(response.head.headerFields[.contentType] == "application/json")
        #expect(response.head.headerFields[try #require(HTTPField.Name("X-Served-By"))] == "test")
        #expect(transport.made.allSatisfy { $0.isBuilt })
    }

    @Test func aDecodingWithoutAHandleLeavesTheHeadUnbuilt() async throws {
        let transport = ReceivedHeadTransport(body: Self.envelope, contentType: "application/json")
        let response = try await Self.client(transport).data(for: Forecasts())
        #expect(try ResponseDecoder().decodeEnvelope(Forecast.self, from: response) == Forecast(location: "Lyon"))
        #expect(transport.made.allSatisfy { !$0.isBuilt })
    }

    @Test func aBodyThatIsNotJSONIsReportedWithItsContentType() async throws {
        let transport = ReceivedHeadTransport(body: Data("<html>busy</html>".utf8), contentType: "text/html")
        let handle = Self.client(transport).request(Forecasts()).decodeEnvelope(Forecast.self)
        let error = await #expect(throws: MappingError.self) { try await handle.value }
        #expect(error?.message.contains("text/html") == true, "\(String(describing: error))")
    }
}

/// Answers every request with a `200`, one body and a head kept as received lines, as the
/// engine makes them, and keeps each head it made.
private final class ReceivedHeadTransport: HTTPTransport {
    private let lines: [UInt8]
    private let body: Data
    private let heads = Mutex<[ReceivedResponseHead]>([])

    init(body: Data, contentType: String) {
        self.body = body
        lines = Array("Content-Type: \(contentType)\nX-Served-By: test\n".utf8)
    }

    var made: [ReceivedResponseHead] { heads.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        TransportResponse(try await data(for: request))
    }

    func data(for request: TransportRequest) async throws -> DataResponse {
        let head = ReceivedResponseHead(status: 200, reason: "OK", lines: lines)
        heads.withLock { $0.append(head) }
        return DataResponse(receivedHead: head, body: body, url: request.url)
    }
}
