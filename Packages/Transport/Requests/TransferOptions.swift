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
    /// The options set on a value. Each is an optional: `nil` means "never set here". The
    /// deadline and the event handler are optional values themselves, so theirs are doubly
    /// optional: `.some(nil)` is "set to none", which wins over a default that has one.
    private struct Fields: Sendable {
        var connectTimeout: Duration?
        var stallTimeout: Duration?
        var deadline: Duration??
        var maximumBodySize: Int?
        var maximumHeaderSize: Int?
        var redirects: RedirectPolicy?
        var decodesContent: Bool?
        var compressesRequestBody: Bool?
        var eventHandler: (@Sendable (TransferEvent) -> Void)??
        var proxy: ProxySetting?
        var unixSocketPath: String??
        var credentials: HTTPCredentials??
    }

    /// The fields in one immutable object that the value's copies share. A request carries its
    /// options through every layer into the engine, and is copied on the way; a copy then costs
    /// one reference count rather than one per string, closure and proxy. Options are set far
    /// less often than copied: a setter makes a new object.
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) { self.fields = fields }

        /// The storage of options with nothing set, shared by every such value.
        static let unset = Storage(Fields())
    }

    private var storage = Storage.unset

    /// The fields, read from the shared storage or replaced by a new one.
    private var stored: Fields {
        get { storage.fields }
        set { storage = Storage(newValue) }
    }

    /// The longest wait for a connection (TCP and TLS), 10 seconds by default.
    public var connectTimeout: Duration {
        get { storage.fields.connectTimeout ?? .seconds(10) }
        set { stored.connectTimeout = newValue }
    }

    /// How long the transfer may go without moving a byte before it fails as stalled,
    /// 30 seconds by default.
    ///
    /// A streaming response that is paused because its consumer is not reading is not stalled.
    public var stallTimeout: Duration {
        get { storage.fields.stallTimeout ?? .seconds(30) }
        set { stored.stallTimeout = newValue }
    }

    /// The longest the whole transfer may take, redirects included; `nil` (the default) for no limit.
    ///
    /// Setting it to `nil` sets "no limit": it wins over an engine default that has a deadline.
    public var deadline: Duration? {
        get { storage.fields.deadline ?? nil }
        set { stored.deadline = .some(newValue) }
    }

    /// The largest response body, counted after content decoding, that may be collected in
    /// memory: 64 MiB by default. Streaming consumers are not limited by it.
    public var maximumBodySize: Int {
        get { storage.fields.maximumBodySize ?? 64 * 1024 * 1024 }
        set { stored.maximumBodySize = newValue }
    }

    /// The largest response header section accepted, 256 KiB by default.
    ///
    /// An engine may refuse a single oversized line below this limit: the libcurl engine fails
    /// any header line over 100 KiB with ``ErrorCategory/headersTooLarge``.
    public var maximumHeaderSize: Int {
        get { storage.fields.maximumHeaderSize ?? 256 * 1024 }
        set { stored.maximumHeaderSize = newValue }
    }

    /// Which redirects are followed, and how many: ``RedirectPolicy/follow(limit:)`` with a
    /// limit of 10 by default.
    public var redirects: RedirectPolicy {
        get { storage.fields.redirects ?? .follow(limit: 10) }
        set { stored.redirects = newValue }
    }

    /// Whether the engine advertises and decodes compressed responses (gzip, deflate, br, zstd),
    /// `true` by default. When `false`, bodies arrive exactly as the server sent them.
    public var decodesContent: Bool {
        get { storage.fields.decodesContent ?? true }
        set { stored.decodesContent = newValue }
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
        get { storage.fields.compressesRequestBody ?? false }
        set { stored.compressesRequestBody = newValue }
    }

    /// Receives progress, redirect and metrics events while the transfer runs; `nil` by default.
    ///
    /// The handler runs on the engine's thread: it must return quickly and must not block.
    /// Progress events come at most about 20 times a second per direction, plus a final one.
    /// Like every option, a request's own handler replaces the engine's default one rather
    /// than adding to it, and setting `nil` silences the engine's.
    public var eventHandler: (@Sendable (TransferEvent) -> Void)? {
        get { storage.fields.eventHandler ?? nil }
        set { stored.eventHandler = .some(newValue) }
    }

    /// Whether the transfer goes through a proxy, and which: ``ProxySetting/environment`` by
    /// default (`http_proxy`, `https_proxy`, `ALL_PROXY`, `no_proxy`, as curl reads them).
    ///
    /// ``ProxySetting/direct`` ignores the environment and connects directly;
    /// ``ProxySetting/proxy(_:)`` names a proxy, which wins over the environment. The proxy's
    /// password is never logged or shown in an error.
    public var proxy: ProxySetting {
        get { storage.fields.proxy ?? .environment }
        set { stored.proxy = newValue }
    }

    /// The path of a Unix domain socket to connect to instead of the URL's host and port; `nil`
    /// (the default) for a TCP connection.
    ///
    /// The URL still names the request's target and `Host` (`http://localhost/v1/info`); every
    /// hop, redirects included, goes over the socket, and connections to it are reused like
    /// TCP ones. An `https` URL runs TLS over the socket. A proxy is not used for such a request.
    /// Setting `nil` sets "TCP": it wins over an engine default that names a socket.
    public var unixSocketPath: String? {
        get { storage.fields.unixSocketPath ?? nil }
        set { stored.unixSocketPath = .some(newValue) }
    }

    /// The user name and password sent to the server, by the scheme they name (Basic, Digest);
    /// `nil` by default.
    ///
    /// They are sent to the origin of the request only: a redirect to another scheme, host or
    /// port drops them for the rest of the chain. The password is never logged, shown in an
    /// error, or rendered in a `curl` command unless asked for. Setting `nil` sets "none": it
    /// wins over an engine default that has credentials.
    public var credentials: HTTPCredentials? {
        get { storage.fields.credentials ?? nil }
        set { stored.credentials = .some(newValue) }
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
        // Nothing set on one side: the other side is the answer, shared as it is.
        if storage === Storage.unset { return defaults }
        if defaults.storage === Storage.unset { return self }
        let own = storage.fields
        let fallback = defaults.storage.fields
        var merged = TransferOptions()
        merged.stored = Fields(
            connectTimeout: own.connectTimeout ?? fallback.connectTimeout,
            stallTimeout: own.stallTimeout ?? fallback.stallTimeout,
            deadline: own.deadline ?? fallback.deadline,
            maximumBodySize: own.maximumBodySize ?? fallback.maximumBodySize,
            maximumHeaderSize: own.maximumHeaderSize ?? fallback.maximumHeaderSize,
            redirects: own.redirects ?? fallback.redirects,
            decodesContent: own.decodesContent ?? fallback.decodesContent,
            compressesRequestBody: own.compressesRequestBody ?? fallback.compressesRequestBody,
            eventHandler: own.eventHandler ?? fallback.eventHandler,
            proxy: own.proxy ?? fallback.proxy,
            unixSocketPath: own.unixSocketPath ?? fallback.unixSocketPath,
            credentials: own.credentials ?? fallback.credentials)
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
