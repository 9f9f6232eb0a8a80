/// Timeouts, limits, redirect rules and observers for one transfer.
///
/// Options are layered. A value holds only the options that were set on it: assigning a
/// property sets that option, even to its default value (`deadline = nil` is "no deadline",
/// not "unset"). When an engine sends a request, every option the request left unset takes
/// the engine's own default (``resolved(over:)`` with `CurlTransport.Configuration.defaultOptions`
/// for the libcurl engine), and an option set nowhere takes the built-in default stated beside
/// its property. Reading an option that was never set gives that built-in default.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.defaultOptions.maximumBodySize = 1 << 20   // every request: 1 MiB in memory
/// configuration.defaultOptions.stallTimeout = .seconds(5)
/// var request = try TransportRequest(method: .get, url: "https://example.com/export.csv")
/// request.options.maximumBodySize = 32 << 20              // this request: 32 MiB, 5 s stall timeout
/// ```
///
/// Every built-in default is the safe one.
public struct TransferOptions: Sendable {
    // Each option is stored as an optional: `nil` means "never set here". The deadline and
    // the event handler are optional values themselves, so theirs are doubly optional:
    // `.some(nil)` is "set to none", which wins over a default that has one.
    private var storedConnectTimeout: Duration?
    private var storedStallTimeout: Duration?
    private var storedDeadline: Duration??
    private var storedMaximumBodySize: Int?
    private var storedMaximumHeaderSize: Int?
    private var storedRedirects: RedirectPolicy?
    private var storedDecodesContent: Bool?
    private var storedCompressesRequestBody: Bool?
    private var storedEventHandler: (@Sendable (TransferEvent) -> Void)??
    private var storedProxy: ProxySetting?
    private var storedUnixSocketPath: String??
    private var storedCredentials: HTTPCredentials??

    /// The longest wait for a connection (TCP and TLS), 10 seconds by default.
    public var connectTimeout: Duration {
        get { storedConnectTimeout ?? .seconds(10) }
        set { storedConnectTimeout = newValue }
    }

    /// How long the transfer may go without moving a byte before it fails as stalled,
    /// 30 seconds by default.
    ///
    /// A streaming response that is paused because its consumer is not reading is not stalled.
    public var stallTimeout: Duration {
        get { storedStallTimeout ?? .seconds(30) }
        set { storedStallTimeout = newValue }
    }

    /// The longest the whole transfer may take, redirects included; `nil` (the default) for no limit.
    ///
    /// Setting it to `nil` sets "no limit": it wins over an engine default that has a deadline.
    public var deadline: Duration? {
        get { storedDeadline ?? nil }
        set { storedDeadline = .some(newValue) }
    }

    /// The largest response body, counted after content decoding, that may be collected in
    /// memory: 64 MiB by default. Streaming consumers are not limited by it.
    public var maximumBodySize: Int {
        get { storedMaximumBodySize ?? 64 * 1024 * 1024 }
        set { storedMaximumBodySize = newValue }
    }

    /// The largest response header section accepted, 256 KiB by default.
    ///
    /// An engine may refuse a single oversized line below this limit: the libcurl engine fails
    /// any header line over 100 KiB with ``ErrorCategory/headersTooLarge``.
    public var maximumHeaderSize: Int {
        get { storedMaximumHeaderSize ?? 256 * 1024 }
        set { storedMaximumHeaderSize = newValue }
    }

    /// Which redirects are followed, and how many: ``RedirectPolicy/follow(limit:)`` with a
    /// limit of 10 by default.
    public var redirects: RedirectPolicy {
        get { storedRedirects ?? .follow(limit: 10) }
        set { storedRedirects = newValue }
    }

    /// Whether the engine advertises and decodes compressed responses (gzip, deflate, br, zstd),
    /// `true` by default. When `false`, bodies arrive exactly as the server sent them.
    public var decodesContent: Bool {
        get { storedDecodesContent ?? true }
        set { storedDecodesContent = newValue }
    }

    /// Whether the engine sends the request body gzip-compressed, `false` by default.
    ///
    /// When `true` and the request has a body, the engine compresses it while sending
    /// (streaming, never the whole body in memory; a file is still read in chunks) and adds
    /// `Content-Encoding: gzip`. The compressed length is not known in advance, so the body is
    /// sent without `Content-Length`: chunked over HTTP/1.1. Turn it on only for servers that
    /// accept gzip-encoded request bodies; others answer `415` or misread the body. A request
    /// that already has a `Content-Encoding` header fails with
    /// ``ErrorCategory/invalidHeader`` rather than being encoded twice.
    public var compressesRequestBody: Bool {
        get { storedCompressesRequestBody ?? false }
        set { storedCompressesRequestBody = newValue }
    }

    /// Receives progress, redirect and metrics events while the transfer runs; `nil` by default.
    ///
    /// The handler runs on the engine's thread: it must return quickly and must not block.
    /// Progress events come at most about 20 times a second per direction, plus a final one.
    /// Like every option, a request's own handler replaces the engine's default one rather
    /// than adding to it, and setting `nil` silences the engine's.
    public var eventHandler: (@Sendable (TransferEvent) -> Void)? {
        get { storedEventHandler ?? nil }
        set { storedEventHandler = .some(newValue) }
    }

    /// Whether the transfer goes through a proxy, and which: ``ProxySetting/environment`` by
    /// default (`http_proxy`, `https_proxy`, `ALL_PROXY`, `no_proxy`, as curl reads them).
    ///
    /// ``ProxySetting/direct`` ignores the environment and connects directly;
    /// ``ProxySetting/proxy(_:)`` names a proxy, which wins over the environment. The proxy's
    /// password is never logged or shown in an error.
    public var proxy: ProxySetting {
        get { storedProxy ?? .environment }
        set { storedProxy = newValue }
    }

    /// The path of a Unix domain socket to connect to instead of the URL's host and port; `nil`
    /// (the default) for a TCP connection.
    ///
    /// The URL still names the request's target and `Host` (`http://localhost/v1/info`); every
    /// hop, redirects included, goes over the socket, and connections to it are reused like
    /// TCP ones. An `https` URL runs TLS over the socket. A proxy is not used for such a request.
    /// Setting `nil` sets "TCP": it wins over an engine default that names a socket.
    public var unixSocketPath: String? {
        get { storedUnixSocketPath ?? nil }
        set { storedUnixSocketPath = .some(newValue) }
    }

    /// The user name and password sent to the server, by the scheme they name (Basic, Digest);
    /// `nil` by default.
    ///
    /// They are sent to the origin of the request only: a redirect to another scheme, host or
    /// port drops them for the rest of the chain. The password is never logged, shown in an
    /// error, or rendered in a `curl` command unless asked for. Setting `nil` sets "none": it
    /// wins over an engine default that has credentials.
    public var credentials: HTTPCredentials? {
        get { storedCredentials ?? nil }
        set { storedCredentials = .some(newValue) }
    }

    /// Creates options with nothing set: each reads as its built-in default and, when an engine
    /// sends the request, takes the engine's default instead.
    public init() {}

    /// These options over `defaults`: each option set here wins; each option left unset here
    /// takes its value from `defaults` when it is set there, and stays unset otherwise (so it
    /// still reads as its built-in default).
    ///
    /// Engines call it with their own defaults before a request starts; resolving the result
    /// again changes nothing that was set by then.
    ///
    /// - Parameter defaults: The options to fall back on, such as an engine's defaults.
    /// - Returns: The merged options.
    public func resolved(over defaults: TransferOptions) -> TransferOptions {
        var merged = self
        merged.storedConnectTimeout = storedConnectTimeout ?? defaults.storedConnectTimeout
        merged.storedStallTimeout = storedStallTimeout ?? defaults.storedStallTimeout
        merged.storedDeadline = storedDeadline ?? defaults.storedDeadline
        merged.storedMaximumBodySize = storedMaximumBodySize ?? defaults.storedMaximumBodySize
        merged.storedMaximumHeaderSize = storedMaximumHeaderSize ?? defaults.storedMaximumHeaderSize
        merged.storedRedirects = storedRedirects ?? defaults.storedRedirects
        merged.storedDecodesContent = storedDecodesContent ?? defaults.storedDecodesContent
        merged.storedCompressesRequestBody = storedCompressesRequestBody ?? defaults.storedCompressesRequestBody
        merged.storedEventHandler = storedEventHandler ?? defaults.storedEventHandler
        merged.storedProxy = storedProxy ?? defaults.storedProxy
        merged.storedUnixSocketPath = storedUnixSocketPath ?? defaults.storedUnixSocketPath
        merged.storedCredentials = storedCredentials ?? defaults.storedCredentials
        return merged
    }
}

/// Which redirects a transfer follows.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects followed before the transfer fails; 0 means redirects are returned
    /// to the caller as ordinary responses.
    public var limit: Int

    /// Follows at most `limit` redirects (10 by default) to http or https URLs only.
    ///
    /// `Authorization`, `Cookie` and `Proxy-Authorization` are removed as soon as a redirect
    /// changes origin (scheme, host or port) and are not restored later in the chain, even if
    /// it comes back to the first origin.
    public static func follow(limit: Int = 10) -> RedirectPolicy { RedirectPolicy(limit: max(0, limit)) }

    /// Returns every redirect response to the caller without following it.
    public static let none = RedirectPolicy(limit: 0)
}
