public import Foundation
public import HTTPTypes
public import Transport

/// A transport that answers from a closure instead of the network, for testing the layers
/// above the engine (forms, mapping, retry, feedback).
///
/// It records every request it receives, with its body read into memory, so a test can
/// assert on what was sent:
///
/// ```swift
/// let transport = StubTransport { request in
///     .init(status: .ok, body: Data(#"{"code":200}"#.utf8))
/// }
/// _ = try await transport.data(for: request)
/// #expect(transport.requests.first?.head.method == .get)
/// ```
///
/// The engine itself is never tested with this double; it is tested against real servers.
public final class StubTransport: HTTPTransport {
    /// A canned answer.
    public struct Reply: Sendable {
        /// The response head.
        public var head: HTTPResponse
        /// The whole body.
        public var body: Data

        /// Creates a reply.
        ///
        /// - Parameters:
        ///   - status: The status, `200 OK` by default.
        ///   - headers: The header fields, none by default.
        ///   - body: The body, empty by default.
        public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Data = Data()) {
            self.head = HTTPResponse(status: status, headerFields: headers)
            self.body = body
        }
    }

    /// A request as the stub received it, with its body in memory.
    public struct RecordedRequest: Sendable {
        /// The request head.
        public var head: HTTPRequest
        /// The body's bytes, or `nil` when the request had none.
        public var body: Data?
        /// The options it was sent with.
        public var options: TransferOptions
        /// The request's URL, as ``/Transport/TransportRequest/url`` gave it.
        public var url: String
    }

    private let respond: @Sendable (TransportRequest) async throws -> Reply
    private let recorded = PThreadMutex<[RecordedRequest]>([])

    /// Creates a stub that answers every request with `respond`.
    ///
    /// - Parameter respond: Produces the reply, or throws (a ``/Transport/TransportError`` to simulate a
    ///   network failure).
    public init(_ respond: @escaping @Sendable (TransportRequest) async throws -> Reply) {
        self.respond = respond
    }

    /// Creates a stub that answers every request with the same reply.
    ///
    /// - Parameter reply: The reply.
    public convenience init(always reply: Reply) {
        self.init { _ in reply }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// Records the request, then answers with the closure's reply as a collected body.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let body = try await Self.read(request.body)
        recorded.withLock {
            $0.append(RecordedRequest(head: request.head, body: body, options: request.options, url: request.url))
        }
        let reply = try await respond(request)
        return TransportResponse(head: reply.head, body: ResponseBody(reply.body), url: request.url)
    }

    private static func read(_ body: RequestBody?) async throws -> Data? {
        guard let body else { return nil }
        switch body.content {
        case .bytes(let data):
            return data
        case .file(let path, let offset, let length):
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let start = Int(offset)
            let end = length.map { start + Int($0) } ?? data.count
            guard start <= end, end <= data.count else {
                throw TransportError(.invalidBody, message: "The file \(path) is shorter than the requested range.")
            }
            return data.subdata(in: start..<end)
        case .stream(let stream):
            let collected = PThreadMutex(Data())
            try await stream.pump { chunk in collected.withLock { $0.append(chunk) } }
            return collected.withLock { $0 }
        }
    }
}
