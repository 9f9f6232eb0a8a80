public import HTTPTypes

/// Something that happened during a transfer, delivered to ``TransferOptions/eventHandler``.
public enum TransferEvent: Sendable {
    /// Bytes of the request body were sent.
    case uploadProgress(TransferProgress)
    /// Bytes of the response body were received.
    case downloadProgress(TransferProgress)
    /// The engine followed a redirect.
    case redirect(RedirectEvent)
    /// The transfer finished; these are its timings and counters.
    case metrics(TransferMetrics)
    /// The request is about to be sent again, by a retry loop around the transport (the Retry
    /// module's middleware, or a download's own loop): which attempt, why, and the wait first.
    ///
    /// On a request handle this arrives as ``RequestEvent/retry(_:)``, its one place there.
    case retry(RetryEvent)
    /// An interim (`1xx`) response arrived before the final one: `104 Upload Resumption
    /// Supported` with the upload's `Location`, `103 Early Hints`, `100 Continue`. Its head
    /// has its status and fields; the final response's head does not include them.
    ///
    /// libcurl 7.88.1 goes on sending the request body after any interim response, and waits
    /// for `100 Continue` only when the request asks for it (`Expect: 100-continue`).
    case informationalResponse(HTTPResponse)
}

/// How far a transfer in one direction has come.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes done so far.
    public var completed: Int64
    /// The total, when known (from `Content-Length` or the request body's length).
    public var total: Int64?
    /// The average rate since the direction started, in bytes per second.
    public var bytesPerSecond: Double
    /// Whether this is the last event for this direction.
    public var isFinal: Bool

    /// Creates a progress value.
    public init(completed: Int64, total: Int64?, bytesPerSecond: Double, isFinal: Bool) {
        self.completed = completed
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.isFinal = isFinal
    }

    /// `completed / total` in `0...1`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(completed) / Double(total))
    }
}

/// A redirect the engine followed.
public struct RedirectEvent: Sendable, Hashable {
    /// The URL that answered with the redirect, unredacted (credentials included): show it
    /// through ``LogRedaction/redactedURL(_:)``.
    public var from: String
    /// The URL the engine went to next, unredacted, like ``from``.
    public var to: String
    /// The redirect's status code (301, 302, 303, 307 or 308).
    public var status: Int
    /// The method of the next request (a 303, or a 301/302 after a POST, turns it into GET).
    public var method: HTTPRequest.Method
    /// Credential headers removed because the origin changed.
    public var strippedHeaders: [HTTPField.Name]

    /// Creates a redirect event.
    public init(from: String, to: String, status: Int, method: HTTPRequest.Method, strippedHeaders: [HTTPField.Name]) {
        self.from = from
        self.to = to
        self.status = status
        self.method = method
        self.strippedHeaders = strippedHeaders
    }
}

/// A request about to be sent again: what a retry loop reports before it waits.
public struct RetryEvent: Sendable, Hashable {
    /// The attempt about to be made, counting the first as 1 (so a first retry is 2).
    public var attempt: Int
    /// How many attempts there will be at most, when known.
    public var maximumAttempts: Int?
    /// Why: the failure's message, or a few words (`HTTP 503`). Redacted whenever it is set,
    /// by ``LogRedaction/redactedText(_:)``, since notices show it to a person.
    public var reason: String {
        didSet { reason = LogRedaction.redactedText(reason) }
    }
    /// How long the loop waits before sending it, when known.
    public var delay: Duration?
    /// Whether the server chose that wait (`Retry-After`).
    public var serverAsked: Bool

    /// Creates a retry event.
    ///
    /// - Parameters:
    ///   - attempt: The attempt about to be made (2 for the first retry).
    ///   - maximumAttempts: The most attempts there will be, if known.
    ///   - reason: Why the request is sent again; stored redacted.
    ///   - delay: The wait before it is sent, if known.
    ///   - serverAsked: Whether the server asked for that wait.
    public init(
        attempt: Int, maximumAttempts: Int? = nil, reason: String, delay: Duration? = nil, serverAsked: Bool = false
    ) {
        self.attempt = attempt
        self.maximumAttempts = maximumAttempts
        self.reason = LogRedaction.redactedText(reason)
        self.delay = delay
        self.serverAsked = serverAsked
    }
}

/// Timings and counters of a finished transfer (its last hop, for a redirected one).
///
/// Durations are measured from the start of that hop.
public struct TransferMetrics: Sendable, Hashable {
    /// Time until the host name was resolved.
    public var nameLookup: Duration
    /// Time until the TCP connection was established.
    public var connect: Duration
    /// Time until the TLS handshake completed (zero for cleartext).
    public var tlsHandshake: Duration
    /// Time until the first response byte arrived.
    public var firstByte: Duration
    /// Time until the transfer completed.
    public var total: Duration
    /// Request body bytes sent.
    public var bytesSent: Int64
    /// Response body bytes received, before decoding.
    public var bytesReceived: Int64
    /// Whether the transfer reused an already open connection.
    public var reusedConnection: Bool
    /// The HTTP version spoken: `"1.0"`, `"1.1"`, `"2"` or `"3"`.
    public var httpVersion: String
    /// How many redirects were followed before this hop.
    public var redirectCount: Int

    /// Creates a metrics value.
    public init(
        nameLookup: Duration, connect: Duration, tlsHandshake: Duration, firstByte: Duration, total: Duration,
        bytesSent: Int64, bytesReceived: Int64, reusedConnection: Bool, httpVersion: String, redirectCount: Int
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reusedConnection = reusedConnection
        self.httpVersion = httpVersion
        self.redirectCount = redirectCount
    }
}
