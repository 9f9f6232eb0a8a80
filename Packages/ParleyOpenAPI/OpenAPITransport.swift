#if OpenAPI
    public import Foundation
    public import HTTPTypes
    public import OpenAPIRuntime
    public import Transport

    /// A `ClientTransport` of swift-openapi-runtime that sends through any Parley
    /// ``/Transport/HTTPTransport``: a client made by swift-openapi-generator calls its operations
    /// on Parley's engine, with Parley's middleware around them.
    ///
    /// ```swift
    /// let engine = try CurlTransport()
    /// let client = Client(
    ///     serverURL: URL(string: "https://api.example.com/v1")!,
    ///     transport: OpenAPITransport(MiddlewareTransport(engine, middleware: [RetryMiddleware(), auth, cache]))
    /// )
    /// let forecast = try await client.getForecast(query: .init(city: "Toronto")).ok.body.json
    /// ```
    ///
    /// Bodies stream both ways, never collected by the transport: a request body is pumped into
    /// the engine chunk by chunk as the connection takes it (a replayable `HTTPBody`, which
    /// iterates more than once, stays replayable for retries and `307`/`308` redirects; a
    /// single-pass one is sent once), and a response body is handed to the client as the engine
    /// receives it, with the engine's backpressure: nothing more is read from the network while
    /// the client does not iterate. A response body the client drops without reading it to the
    /// end stops its transfer and frees the connection.
    ///
    /// Cancelling the calling task cancels the transfer, as for any Parley transport. A failure
    /// is thrown as the ``/Transport/TransportError`` the transport threw, which the generated
    /// client wraps in a `ClientError`: its `underlyingError` is that error, with its
    /// ``/Transport/TransportError/category-swift.property`` and
    /// ``/Transport/TransportError/message``.
    public struct OpenAPITransport: ClientTransport {
        /// The transport that sends: the engine, or a chain around it.
        public let transport: any HTTPTransport
        /// The options every request starts from; nothing set by default, so the engine's
        /// defaults apply.
        public var options: TransferOptions

        /// Sends the operations of a generated client through `transport`.
        ///
        /// - Parameters:
        ///   - transport: The engine (`CurlTransport`) or a chain around it
        ///     (`MiddlewareTransport`, `InFlightSharing`): its links apply to every operation.
        ///   - options: The options of every request (timeouts, size limits, redirects);
        ///     ``/Transport/TransferOptions/init()`` (the engine's defaults) by default.
        public init(_ transport: any HTTPTransport, options: TransferOptions = TransferOptions()) {
            self.transport = transport
            self.options = options
        }

        /// Sends one operation's request and returns when the response head has arrived; the
        /// response body streams.
        ///
        /// - Parameters:
        ///   - request: The request the generated client made; its path holds the query.
        ///   - body: The request body, if any.
        ///   - baseURL: The server URL the client was made with; the request's path is appended
        ///     to its path.
        ///   - operationID: The operation's identifier (unused by the transport).
        /// - Returns: The response head and its streaming body (`nil` for a response that has
        ///   none: to `HEAD`, `204`, `304`).
        /// - Throws: ``/Transport/TransportError``: ``/Transport/ErrorCategory/invalidURL``
        ///   when the server URL and the path do not make an `http` or `https` URL, and any error
        ///   of the transfer.
        public func send(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var outgoing = try TransportRequest(
                method: request.method,
                url: Self.url(base: baseURL, path: request.path),
                body: body.map(RequestBody.init(openAPIBody:)),
                options: options
            )
            outgoing.head.headerFields = request.headerFields
            let response = try await transport.send(outgoing)
            guard Self.hasBody(method: request.method, status: response.status) else {
                response.body.cancel()
                return (response.head, nil)
            }
            return (response.head, HTTPBody(response))
        }

        /// The server URL with the request's path (and query) appended.
        static func url(base: URL, path: String?) -> String {
            var base = base.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            guard let path, !path.isEmpty else { return base + "/" }
            return path.hasPrefix("/") ? base + path : base + "/" + path
        }

        /// Whether a response can have a body (RFC 9110 §6.4.1).
        static func hasBody(method: HTTPRequest.Method, status: HTTPResponse.Status) -> Bool {
            method != .head && status.kind != .informational && status != .noContent && status != .notModified
        }
    }
#endif
