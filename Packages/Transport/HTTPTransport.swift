/// A type that performs HTTP transfers.
///
/// Feature modules and the layers above depend on this protocol only; the application's
/// composition root chooses the engine (`CurlTransport` from TransportCurl), and tests use the
/// doubles in TransportTesting.
///
/// A transport has two entry points. ``send(_:)`` returns once the response head has arrived
/// and streams the body; ``data(for:)`` returns once the whole body is in memory, which an
/// engine can do with less work per request than streaming.
///
/// ```swift
/// let transport: any HTTPTransport = try CurlTransport()
/// let request = try TransportRequest(method: .get, url: "https://example.com/")
/// let response = try await transport.data(for: request)
/// print(response.status, response.body.count)
/// ```
///
/// Cancelling the calling task cancels the transfer within milliseconds; the call then throws
/// ``TransportError`` with category ``ErrorCategory/cancelled``.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns when the response head has arrived.
    ///
    /// - Parameter request: The request.
    /// - Returns: The head, and a body to iterate or collect.
    /// - Throws: ``TransportError``.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends a request and returns when the whole body has arrived.
    ///
    /// The default implementation calls ``send(_:)`` and collects the body up to
    /// ``TransferOptions/maximumBodySize``.
    ///
    /// - Parameter request: The request.
    /// - Returns: The head and the whole body.
    /// - Throws: ``TransportError``, including ``ErrorCategory/responseTooLarge``.
    func data(for request: TransportRequest) async throws -> DataResponse
}

extension HTTPTransport {
    /// Sends the request with ``send(_:)`` and collects the body up to the request's size limit.
    public func data(for request: TransportRequest) async throws -> DataResponse {
        let response = try await send(request)
        let body = try await response.body.collect(upTo: request.options.maximumBodySize)
        return DataResponse(head: response.head, body: body, url: response.url)
    }
}
