import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing
import Transport
import TransportTesting

@Suite struct MiddlewareTransportTests {
    struct Tag: TransportMiddleware {
        let name: String
        let log: LockedRecorder<String>
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            log.append("→\(name)")
            var request = request
            try request.addHeader("X-Through", name)
            let response = try await next(request)
            log.append("←\(name)")
            return response
        }
    }

    struct ShortCircuit: TransportMiddleware {
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            TransportResponse(head: HTTPResponse(status: .notModified), body: ResponseBody(), url: request.url)
        }
    }

    @Test func runsMiddlewareOutermostFirstAroundTheBase() async throws {
        let log = LockedRecorder<String>()
        let stub = StubTransport(always: .init(body: Data("ok".utf8)))
        let transport = MiddlewareTransport(stub, middleware: [Tag(name: "a", log: log), Tag(name: "b", log: log)])

        let response = try await transport.data(for: TransportRequest(method: .get, url: "http://example.com/"))

        #expect(response.body == Data("ok".utf8))
        #expect(log.all == ["→a", "→b", "←b", "←a"])
        let sent = try #require(stub.requests.first)
        #expect(sent.head.headerFields[values: HTTPField.Name("X-Through")!] == ["a", "b"])
    }

    /// A base that collects bodies itself under its own engine-wide limit, as `CurlTransport` does.
    struct LargeBodyEngine: HTTPTransport {
        let bodySize: Int
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(
                head: HTTPResponse(status: .ok), body: ResponseBody(Data(count: bodySize)), url: request.url)
        }
        func data(for request: TransportRequest) async throws -> DataResponse {
            DataResponse(head: HTTPResponse(status: .ok), body: Data(count: bodySize), url: request.url)
        }
    }

    @Test func aBodyTheBaseCollectedUnderItsOwnLimitIsNotLimitedAgain() async throws {
        // Above the built-in 64 MiB, as an engine-wide `maximumBodySize` may allow.
        let transport = MiddlewareTransport(LargeBodyEngine(bodySize: 65 << 20), middleware: [PassThrough()])
        let response = try await transport.data(for: TransportRequest(method: .get, url: "http://example.com/"))
        #expect(response.body.count == 65 << 20)
    }

    struct PassThrough: TransportMiddleware {
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            try await next(request)
        }
    }

    @Test func aMiddlewareCanAnswerWithoutSending() async throws {
        let stub = StubTransport(always: .init())
        let transport = MiddlewareTransport(stub, middleware: [ShortCircuit()])

        let response = try await transport.send(TransportRequest(method: .get, url: "http://example.com/"))

        #expect(response.status == .notModified)
        #expect(stub.requests.isEmpty)
    }
}
