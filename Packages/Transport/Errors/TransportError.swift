/// A failure of an HTTP transfer, with what happened, where, and what to do about it.
///
/// `TransportError` is an extensible struct rather than an enum, so new categories can be
/// added without breaking callers that switch over them. Match on ``category``:
///
/// ```swift
/// do {
///     let response = try await transport.data(for: request)
/// } catch let error as TransportError where error.category == .connectTimeout {
///     print(error.message)   // says which host, after how long, and what to check
/// }
/// ```
///
/// ``mayHaveReachedServer`` tells a retry policy whether re-sending a non-idempotent request
/// could apply it twice: it is `false` only when the engine knows no byte of the request
/// left the machine (a DNS failure, a refused connection, a bad argument).
///
/// Nothing secret is shown: ``message`` and ``description`` go through
/// ``LogRedaction/redactedText(_:)`` (a URL's password, credential query values and header
/// values become `<redacted>`), whoever built the error. ``url`` alone keeps the URL as the
/// request had it, for programs.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var category: Category
    /// The URL of the request (after redirects, the URL that failed), if there was one.
    ///
    /// Unredacted: the URL exactly as the request had it, credentials included, so that a
    /// program can send it again or compare it. Show ``redactedURL`` (or ``description``)
    /// instead, never this.
    public var url: String?
    /// The `CURLcode` libcurl returned, when the engine is libcurl and the failure came from it.
    public var curlCode: Int?
    /// Whether any part of the request may have been delivered to the server.
    public var mayHaveReachedServer: Bool
    /// A sentence a person can act on: what happened, where, and what to do.
    ///
    /// Redacted whenever it is set, by ``LogRedaction/redactedText(_:)``: a URL or header
    /// quoted in it shows no credential, so it can go to a log or a screen as it is.
    public var message: String {
        didSet { message = LogRedaction.redactedText(message) }
    }

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - category: What kind of failure this is.
    ///   - message: What happened, where, and what to do; stored redacted.
    ///   - url: The URL of the request, if any; stored as it is (see ``url``).
    ///   - curlCode: The libcurl result code, if the failure came from libcurl.
    ///   - mayHaveReachedServer: Whether the request may have been delivered; `true` unless
    ///     the engine knows it was not.
    public init(
        _ category: Category,
        message: String,
        url: String? = nil,
        curlCode: Int? = nil,
        mayHaveReachedServer: Bool = true
    ) {
        self.category = category
        self.message = LogRedaction.redactedText(message)
        self.url = url
        self.curlCode = curlCode
        self.mayHaveReachedServer = mayHaveReachedServer
    }

    /// ``url`` with its credentials replaced by `<redacted>` (``LogRedaction/redactedURL(_:)``).
    public var redactedURL: String? { url.map(LogRedaction.redactedURL) }

    /// `category: message` followed by the URL (redacted) and the curl code when known.
    public var description: String {
        var text = "\(category): \(message)"
        if let redactedURL { text += " [url: \(redactedURL)]" }
        if let curlCode { text += " [curl code \(curlCode)]" }
        return text
    }
}

extension TransportError {
    /// The kind of a ``TransportError``: an open set of named values.
    ///
    /// Compare with `==` against the static members; a `switch` needs a `default:` case,
    /// because new categories may be added.
    public typealias Category = ErrorCategory<TransportErrorDomain>
}

extension TransportError {
    /// `error` itself when it is a ``TransportError``, otherwise an `.other` error describing
    /// it, after `context` (such as "The download of URL failed") when given.
    package init(wrapping error: any Error, url: String?, context: String? = nil) {
        if let error = error as? TransportError {
            self = error
        } else {
            self.init(.other, message: context.map { "\($0): \(error)" } ?? "\(error)", url: url)
        }
    }
}

/// The domain of ``TransportError``'s categories: `TransportError.Category` is `ErrorCategory<TransportErrorDomain>`.
public enum TransportErrorDomain: ErrorCategoryDomain {
    /// `transport`.
    public static var messageKeyPrefix: String { "transport" }
}

/// The categories of ``TransportError``.
extension ErrorCategory where Domain == TransportErrorDomain {
    // MARK: Connecting

    /// The host name could not be resolved.
    public static let dnsFailure = Self("dnsFailure")
    /// The server refused the connection (nothing listens on that port), or the host is unreachable.
    public static let connectionRefused = Self("connectionRefused")
    /// No connection could be established within the connect timeout.
    public static let connectTimeout = Self("connectTimeout")
    /// The TLS handshake or certificate verification failed.
    public static let tlsFailure = Self("tlsFailure")

    // MARK: Transferring

    /// No byte moved in either direction for longer than the stall timeout.
    public static let stalledTransfer = Self("stalledTransfer")
    /// The whole transfer took longer than its deadline.
    public static let deadlineExceeded = Self("deadlineExceeded")
    /// The connection was reset or broke while sending or receiving.
    public static let connectionReset = Self("connectionReset")
    /// The server closed the connection before the whole body arrived.
    public static let incompleteBody = Self("incompleteBody")
    /// The server closed the connection without sending any response.
    public static let emptyReply = Self("emptyReply")
    /// The server's response broke the HTTP protocol.
    public static let invalidResponse = Self("invalidResponse")

    // MARK: Redirects

    /// More redirects were followed than the policy allows.
    public static let tooManyRedirects = Self("tooManyRedirects")
    /// A redirect pointed at a scheme other than http or https.
    public static let redirectToRefusedScheme = Self("redirectToRefusedScheme")

    // MARK: Limits and content

    /// The body was larger than the in-memory limit (counted after decoding).
    public static let responseTooLarge = Self("responseTooLarge")
    /// The response's header section was larger than the limit.
    public static let headersTooLarge = Self("headersTooLarge")
    /// The body's `Content-Encoding` could not be decoded.
    public static let badContentEncoding = Self("badContentEncoding")

    // MARK: Caller mistakes

    /// The URL was malformed, used an unsupported scheme, or contained forbidden characters.
    public static let invalidURL = Self("invalidURL")
    /// A header name or value contained forbidden characters.
    public static let invalidHeader = Self("invalidHeader")
    /// A request body could not be read (a missing file, a failing stream) or replayed.
    public static let invalidBody = Self("invalidBody")

    // MARK: Retrying

    /// A retry was due, but recent attempts to the same host failed so often that its retry
    /// budget is spent: the request was not sent again, so as not to add to an overload.
    public static let retryBudgetExhausted = Self("retryBudgetExhausted")
    /// A credential was rejected and could not be renewed: the refresh was refused, or
    /// credentials were refreshed so often in a short time that refreshing again would loop.
    public static let authenticationFailed = Self("authenticationFailed")
    /// The server asked (with `Retry-After`) for a wait longer than the retry policy allows,
    /// or longer than the time left before the deadline; the message names the wait.
    public static let retryAfterTooLong = Self("retryAfterTooLong")

    // MARK: Lifecycle

    /// The transfer was cancelled by its task or its handle.
    public static let cancelled = Self("cancelled")
    /// The transport was shut down before or while the transfer ran.
    public static let shutDown = Self("shutDown")
    /// The process had no file descriptor left for a socket (its `RLIMIT_NOFILE`): raise the
    /// limit, or open fewer connections at once.
    public static let outOfDescriptors = Self("outOfDescriptors")
    // MARK: Proxies

    /// The proxy refused to relay the request: it answered `CONNECT` with an error, or a SOCKS
    /// proxy refused or could not reach the host. The message names the proxy.
    public static let proxyFailure = Self("proxyFailure")
    /// The proxy asks for credentials it was not given, or refused those given (`407`). The
    /// message names the proxy, never the password.
    public static let proxyAuthenticationRequired = Self("proxyAuthenticationRequired")

    /// A failure that fits no other category; ``TransportError/message`` says more.
    public static let other = Self("other")
}
