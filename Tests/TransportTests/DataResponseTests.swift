import Foundation
import HTTPTypes
import Testing
import Transport

/// A collected response is one value seen two ways: a ``DataResponse`` (its body as `Data`) and
/// the ``TransportResponse`` the middleware onion passes along. Going from one to the other
/// keeps every part, copies no byte of the body and builds no head; a change made through either
/// is in what the other shows, and a body changed in place keeps its buffer.
///
/// Checked to fail: with `DataResponse(collected:)` taking a streamed body,
/// `aStreamedBodyIsNotTakenAsCollected` finds a response; with the conversion into the onion
/// dropping the classification, `aCollectedResponseCrossesTheOnionWhole` misses it; with the
/// body's in-place change going through its getter and setter, `changesThroughEitherTypeStayInTheResponse`
/// finds the buffer copied.
@Suite struct DataResponseTests {
    private static let metrics = TransferMetrics(
        nameLookup: .milliseconds(1), connect: .milliseconds(2), tlsHandshake: .zero, firstByte: .milliseconds(3),
        total: .milliseconds(4), bytesSent: 80, bytesReceived: 300, reusedConnection: true, httpVersion: "1.1",
        redirectCount: 1)

    private static func received() -> DataResponse {
        let head = ReceivedResponseHead(
            status: 200, reason: "OK", lines: Array("Content-Type: application/json\nETag: \"v1\"\n".utf8))
        var response = DataResponse(
            receivedHead: head, body: Data(repeating: 7, count: 4096), url: "https://example.com/final",
            metrics: metrics)
        response.classification = ResponseClassification(verdict: .success, code: "0", message: "ok")
        return response
    }

    private static func address(of data: Data) -> UnsafeRawPointer? {
        data.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aCollectedResponseCrossesTheOnionWhole() throws {
        let response = Self.received()
        let inOnion = TransportResponse(response)
        let back = try #require(DataResponse(collected: inOnion))

        #expect(back.status == .ok)
        #expect(back.url == "https://example.com/final")
        #expect(back.metrics == Self.metrics)
        #expect(back.classification?.code == "0")
        #expect(back.classification?.message == "ok")
        #expect(inOnion.body.collectedData == response.body)
        // The same bytes, not a copy of them, and the received lines still unread.
        #expect(Self.address(of: back.body) == Self.address(of: response.body))
        #expect(back.lazyHead.received?.isBuilt == false)
        #expect(back.head.headerFields[.eTag] == "\"v1\"")
    }

    @Test func aStreamedBodyIsNotTakenAsCollected() async throws {
        let streamed = TransportResponse(
            head: HTTPResponse(status: .ok), body: ResponseBody(stream: Chunks([Data("ab".utf8), Data("c".utf8)])),
            url: "https://example.com/")
        #expect(DataResponse(collected: streamed) == nil)
        // Collecting it reads the stream and keeps what the response carries beside its body.
        var carrying = streamed
        carrying.metrics = Self.metrics
        carrying.classification = ResponseClassification(verdict: .failure, code: "42")
        let collected = try await carrying.collected(upTo: 3)
        #expect(collected.body == Data("abc".utf8))
        #expect(collected.metrics == Self.metrics)
        #expect(collected.classification?.code == "42")
        #expect(TransportResponse(collected).body.collectedData == Data("abc".utf8))
    }

    @Test func changesThroughEitherTypeStayInTheResponse() throws {
        var response = Self.received()
        // In place: the body's only owner is the response, so its buffer is changed, not copied.
        let before = Self.address(of: response.body)
        response.body[0] = 9
        #expect(Self.address(of: response.body) == before)
        #expect(response.body.first == 9)

        response.body = Data("replaced".utf8)
        response.head.headerFields[.cacheControl] = "no-store"
        response.url = "https://example.com/other"
        response.metrics = nil

        var inOnion = TransportResponse(response)
        #expect(inOnion.body.collectedData == Data("replaced".utf8))
        #expect(inOnion.head.headerFields[.cacheControl] == "no-store")
        #expect(inOnion.url == "https://example.com/other")
        #expect(inOnion.metrics == nil)

        inOnion.body = ResponseBody(Data("again".utf8))
        inOnion.head.status = .accepted
        let back = try #require(DataResponse(collected: inOnion))
        #expect(back.body == Data("again".utf8))
        #expect(back.status == .accepted)
        // The first view is a value of its own: the later changes are not in it.
        #expect(response.body == Data("replaced".utf8))
        #expect(response.status == .ok)
    }

    /// A body delivered in the chunks given.
    private final class Chunks: ResponseBodyStream {
        let chunks: PThreadMutex<[Data]>
        init(_ chunks: [Data]) { self.chunks = PThreadMutex(chunks) }
        func next() async throws -> Data? { chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        func cancel() {}
    }
}
