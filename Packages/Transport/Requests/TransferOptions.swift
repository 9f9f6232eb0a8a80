/// Timeouts, limits, redirect rules and observers for one transfer.
///
/// Every default is the safe one; each is stated beside its property. An engine applies its
/// configuration's defaults to requests that do not override them.
public struct TransferOptions: Sendable {
    /// The longest wait for a connection (TCP and TLS), 10 seconds by default.
    public var connectTimeout: Duration = .seconds(10)

    /// How long the transfer may go without moving a byte before it fails as stalled,
    /// 30 seconds by default.
    ///
    /// A streaming response that is paused because its consumer is not reading is not stalled.
    public var stallTimeout: Duration = .seconds(30)

    /// The longest the whole transfer may take, redirects included; `nil` (the default) for no limit.
    public var deadline: Duration?

    /// The largest response body, counted after content decoding, that may be collected in
    /// memory: 64 MiB by default. Streaming consumers are not limited by it.
    public var maximumBodySize: Int = 64 * 1024 * 1024

    /// The largest response header section accepted, 256 KiB by default.
    public var maximumHeaderSize: Int = 256 * 1024

    /// Which redirects are followed, and how many.
    public var redirects: RedirectPolicy = .follow(limit: 10)

    /// Whether the engine advertises and decodes compressed responses (gzip, deflate, br, zstd),
    /// `true` by default. When `false`, bodies arrive exactly as the server sent them.
    public var decodesContent: Bool = true

    /// Whether the engine sends the request body gzip-compressed, `false` by default.
    ///
    /// When `true` and the request has a body, the engine compresses it while sending
    /// (streaming, never the whole body in memory; a file is still read in chunks) and adds
    /// `Content-Encoding: gzip`. The compressed length is not known in advance, so the body is
    /// sent without `Content-Length`: chunked over HTTP/1.1. Turn it on only for servers that
    /// accept gzip-encoded request bodies; others answer `415` or misread the body. A request
    /// that already has a `Content-Encoding` header fails with
    /// ``TransportError/Category-swift.struct/invalidHeader`` rather than being encoded twice.
    public var compressesRequestBody: Bool = false

    /// Receives progress, redirect and metrics events while the transfer runs; `nil` by default.
    ///
    /// The handler runs on the engine's thread: it must return quickly and must not block.
    /// Progress events come at most about 20 times a second per direction, plus a final one.
    public var eventHandler: (@Sendable (TransferEvent) -> Void)?

    /// Creates the default options.
    public init() {}
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
