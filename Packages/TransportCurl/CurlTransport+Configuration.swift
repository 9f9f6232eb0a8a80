public import Logging
public import Transport

extension CurlTransport {
    /// Engine-wide settings, fixed when the transport is created.
    ///
    /// Every default is the safe one and is stated beside its property.
    public struct Configuration: Sendable {
        /// The options every request of this transport starts from.
        ///
        /// Each option a request sets in its own ``/Transport/TransportRequest/options`` wins; each
        /// option it leaves unset takes the value set here (see
        /// ``/Transport/TransferOptions/resolved(over:)``), and an option set in neither place
        /// takes its built-in default. Nothing is set by default, so the built-in defaults apply:
        /// connect timeout 10 s, stall timeout 30 s, no deadline, 64 MiB in-memory body limit,
        /// 256 KiB header limit, at most 10 redirects (http and https only), content decoding
        /// on, request bodies sent as they are, no event handler.
        ///
        /// ```swift
        /// var configuration = CurlTransport.Configuration()
        /// configuration.defaultOptions.maximumBodySize = 1 << 20
        /// configuration.defaultOptions.stallTimeout = .seconds(5)
        /// ```
        public var defaultOptions = TransferOptions()

        /// The most connections open to one host at once, 16 by default; further requests wait
        /// for a free connection (or share one over HTTP/2).
        public var maximumConnectionsPerHost = 16

        /// The most connections open in total, 0 (the default) for no limit beyond the per-host one.
        public var maximumTotalConnections = 0

        /// libcurl's receive buffer per transfer, in bytes: 64 KiB by default. Larger buffers
        /// (512 KiB) raise throughput for big downloads at the cost of memory per transfer.
        /// libcurl accepts 1 KiB to 10 MiB.
        public var receiveBufferSize = 64 * 1024

        /// How many response bytes a streaming transfer buffers before it stops reading from
        /// the network until the consumer catches up: 1 MiB by default.
        public var streamBufferSize = 1024 * 1024

        /// Whether HTTPS connections offer HTTP/2 (ALPN) and multiplex requests over one
        /// connection, `true` by default. Cleartext always uses HTTP/1.1 with keep-alive.
        public var allowsHTTP2 = true

        /// TLS verification and credentials.
        public var tls = TLSConfiguration()

        /// The `User-Agent` sent when a request has none, `Parley` by default.
        public var userAgent = "Parley"

        /// Where the engine logs requests and responses (credential headers redacted).
        ///
        /// Off by default: the logger discards everything until you pass one of your own.
        public var logger = Logger(label: "parley.transport", factory: { _ in SwiftLogNoOpLogHandler() })

        /// Where the engine warns about unsafe settings, such as disabled TLS verification,
        /// once per request: the process's logging system (standard error unless bootstrapped).
        public var securityLogger = Logger(label: "parley.transport.security")

        /// Creates the default configuration.
        public init() {}
    }

    /// How the engine verifies servers and identifies itself.
    public struct TLSConfiguration: Sendable, Hashable {
        /// A PEM file of CA certificates to trust instead of the system's; `nil` by default.
        public var caFile: String?
        /// A directory of hashed CA certificates (`c_rehash` layout) to trust; `nil` by default.
        public var caDirectory: String?
        /// A PEM client certificate for mutual TLS; `nil` by default.
        public var clientCertificateFile: String?
        /// The PEM private key of ``clientCertificateFile``; `nil` when the key is in the certificate file.
        public var clientKeyFile: String?
        /// The passphrase of ``clientKeyFile``, if it is encrypted.
        public var clientKeyPassword: String?
        /// Public-key pins in libcurl's form, `sha256//BASE64[;sha256//BASE64…]`, or a path to a
        /// PEM/DER public key; a server whose key matches none fails. `nil` (no pinning) by default.
        public var pinnedPublicKey: String?
        /// Turns certificate and host-name verification off. `false` by default.
        ///
        /// Only for test servers you control: anyone on the path can then read and change the
        /// traffic. Every request made with it logs a warning to ``Configuration/securityLogger``.
        public var disablesVerification = false

        /// Creates the default configuration: verify against the system's CA store.
        public init() {}
    }
}
