public import HTTPTypes
public import Transport

/// What a ``RetryPolicy`` needs to know about a request to decide whether repeating it is
/// safe: its method, whether it carries an `Idempotency-Key`, and whether its body can be
/// sent again.
public struct RetryRequest: Sendable, Hashable {
    /// Whether the body can be sent again.
    public enum Body: Sendable, Hashable {
        /// No body.
        case none
        /// Bytes, a file, or a stream made by a factory: sent again from the start.
        case replayable
        /// A one-shot stream: it can be sent once.
        case oneShot
    }

    /// The method.
    public var method: HTTPRequest.Method
    /// The URL, for messages.
    public var url: String
    /// The host the ``RetryBudget`` counts against: `name:port` as the URL gives it.
    public var host: String
    /// The request's `Idempotency-Key`, when it has one.
    public var idempotencyKey: String?
    /// Whether its body can be sent again.
    public var body: Body

    /// Describes a request.
    public init(
        method: HTTPRequest.Method, url: String, host: String, idempotencyKey: String? = nil, body: Body = .none
    ) {
        self.method = method
        self.url = url
        self.host = host
        self.idempotencyKey = idempotencyKey
        self.body = body
    }

    /// Describes a transport request.
    ///
    /// - Parameter request: The request as it will be sent.
    public init(_ request: TransportRequest) {
        let body: Body
        if let requestBody = request.body {
            body = requestBody.isReplayable ? .replayable : .oneShot
        } else {
            body = .none
        }
        let key = request.head.headerFields[IdempotencyKey.fieldName].flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            method: request.head.method, url: request.url,
            host: request.head.authority ?? request.url, idempotencyKey: key, body: body)
    }

    /// Whether the method is idempotent (RFC 9110, section 9.2.2): sending it twice has the
    /// effect of sending it once. GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    public var isIdempotentMethod: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(method)
    }
}
