import Foundation
public import Logging
public import Transport

extension CurlTransport {
    /// Engine-wide settings, fixed when the transport is created.
    ///
    /// Every default is the safe one and is stated beside its property.
    ///
    /// ## Limits
    ///
    /// The engine's limits are these properties and libcurl's own, each documented here:
    ///
    /// - **File descriptors.** Each open connection holds one, idle ones in the connection cache
    ///   included; each event loop holds two more (the pair that wakes it), a request body
    ///   read from a file one while it is sent, and libcurl's resolver a pair while it resolves a
    ///   host name. The
    ///   process's limit (`ulimit -n`, `RLIMIT_NOFILE`) must cover them all: connections are
    ///   bounded by ``maximumConnectionsPerHost`` times the hosts in use, or by
    ///   ``maximumTotalConnections`` when it is set. A request that finds no descriptor left
    ///   fails at once with a ``/Transport/TransportError`` that says so, names the limit and
    ///   what to change; it never waits for one.
    /// - **Connections:** ``maximumConnectionsPerHost`` and ``maximumTotalConnections``, for the
    ///   transport as a whole: each of the ``loopCount`` loops has its share of them. Requests
    ///   beyond a loop's share wait in its libcurl queue, holding no descriptor; over HTTP/2 they
    ///   share connections instead, up to 100 streams on each (libcurl's default).
    /// - **The connection cache.** Connections stay open after use, to be reused, up to the
    ///   largest of ``maximumTotalConnections``, four times ``maximumConnectionsPerHost`` and
    ///   32 (`CURLMOPT_MAXCONNECTS`) with one loop; each loop has a cache of its own, sized by its
    ///   share of the limits the same way. Beyond that the oldest idle one is closed. It holds
    ///   every connection four hosts can use at once, and no more, because each cached
    ///   connection keeps a descriptor (and a server's slot) open.
    /// - **Buffers per transfer:** libcurl's receive buffer (``receiveBufferSize`` for a streamed
    ///   response, ``collectedReceiveBufferSize`` for one collected whole, at most 4 KiB on a
    ///   loop that runs 64 transfers or more), its upload
    ///   buffer for a request with a body (64 KiB, libcurl's default, not configurable here),
    ///   and for a streamed response up to ``streamBufferSize`` of bytes the caller has not read.
    ///   Each loop keeps up to 64 finished easy handles for reuse; libcurl frees a transfer's
    ///   receive buffer when the transfer ends.
    ///
    /// Nothing else caps how many requests are in flight: a loop waits with `epoll(7)`, which
    /// has no `FD_SETSIZE` limit and wakes for the ready sockets only, and 10,000 requests in
    /// flight on one transport work. libcurl 7.88.1 still walks every open connection of its
    /// loop for part of each transfer's work (a finished transfer's removal searches the
    /// connection cache), so CPU time per request grows with the number in flight on a loop
    /// (docs/BENCHMARKS.md, "Ten thousand requests in flight"); several loops divide
    /// it, and high connection limits add loops for it (``loopCount``).
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

        /// The proxy setting of every request that sets none of its own: ``defaultOptions``'s
        /// ``/Transport/TransferOptions/proxy``, ``/Transport/ProxySetting/environment`` by default.
        ///
        /// ```swift
        /// var configuration = CurlTransport.Configuration()
        /// configuration.proxy = .proxy(.socks5(host: "127.0.0.1", port: 1080))  // remote DNS
        /// ```
        public var proxy: ProxySetting {
            get { defaultOptions.proxy }
            set { defaultOptions.proxy = newValue }
        }

        /// The most connections open to one host at once, 16 by default
        /// (`CURLMOPT_MAX_HOST_CONNECTIONS`); further requests wait for a free connection (or
        /// share one over HTTP/2), holding no file descriptor while they wait.
        ///
        /// The limit is the transport's, divided between its ``loopCount`` loops (16 over 2
        /// loops is 8 on each); a request waits for a connection of its own loop.
        ///
        /// Each connection holds a file descriptor, so the process's limit (`ulimit -n`) must
        /// cover this number for every host used at once. The engine sets no upper bound: 10,000
        /// connections to one host work. The connection cache keeps up to four times this many
        /// idle connections open for reuse (see Limits in ``CurlTransport/Configuration``).
        public var maximumConnectionsPerHost = 16

        /// The most connections open in total, across hosts, 0 (the default) for no limit beyond
        /// the per-host one (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
        ///
        /// Set it to bound the file descriptors a transport can use when it talks to many hosts;
        /// requests beyond it wait for a connection to close. When it is larger than four times
        /// ``maximumConnectionsPerHost``, the connection cache grows to it. Like the per-host
        /// limit, it is divided between the ``loopCount`` loops.
        public var maximumTotalConnections = 0

        /// How many event loops carry the transport's load (its base loops), each a thread of its
        /// own with its own libcurl multi handle, connection cache and pool of easy handles:
        /// ``defaultLoopCount`` by default.
        ///
        /// One loop serves any number of requests, but on one core; more loops let a transport
        /// with many requests in flight use more of the machine. A request goes to the loop its
        /// task prefers as an executor (``CurlTransport/taskExecutor``), else, for an HTTPS origin
        /// that may speak HTTP/2, to the origin's own loop, so that its requests share one
        /// connection, else to the origin's own loop until that loop is busy (16 transfers in
        /// flight, or its share of ``maximumConnectionsPerHost`` when fewer), so that a light load
        /// stays on one loop and reuses its connections, else to the base loop with the fewest
        /// transfers in flight.
        ///
        /// When the connection limits allow more than 1,024 connections a loop
        /// (``maximumTotalConnections`` when set, else ``maximumConnectionsPerHost``), the
        /// transport runs extra loops, one per 1,024 connections, up to 64 loops in all:
        /// libcurl 7.88 walks a loop's whole connection cache for each transfer, so a loop with
        /// thousands of connections spends more on that walk than on the transfer. They take
        /// transfers only once every base loop has 256 in flight; ``CurlTransport/loopCount``
        /// says how many loops run.
        ///
        /// The connection limits hold for the transport as a whole: ``maximumConnectionsPerHost``
        /// and ``maximumTotalConnections`` are divided between the loops (16 per host over 2 loops
        /// is 8 on each), and there are never more loops than either limit allows for one
        /// connection each (with ``maximumConnectionsPerHost`` at 1, one loop). A request waits for
        /// a connection of its own loop, even while another loop has one free.
        ///
        /// ``CurlTransport/init(configuration:)`` throws when it is below 1. Each loop holds a
        /// thread and two file descriptors.
        public var loopCount = Configuration.defaultLoopCount

        /// The default ``loopCount``: one loop per processor the process may run on
        /// (`ProcessInfo.activeProcessorCount`), at most 8.
        ///
        /// A loop is busy on one core while transfers run, so a loop per core lets a transport use
        /// the machine. With 64 requests in flight on 2 cores, 2 loops served at least as many
        /// requests per second as 1, at 1 % more instructions per request; spread over 8 loops
        /// they cost a quarter more CPU per request (docs/BENCHMARKS.md, "Several event loops").
        /// At most 8, so that the default 16 connections per host leave each loop two. High
        /// connection limits add loops of their own (``loopCount``).
        public static var defaultLoopCount: Int { min(max(1, ProcessInfo.processInfo.activeProcessorCount), 8) }

        /// libcurl's receive buffer for a streamed response (``CurlTransport/send(_:)``), in bytes
        /// (`CURLOPT_BUFFERSIZE`): 64 KiB by default. Larger buffers (512 KiB) raise throughput
        /// for big downloads at the cost of memory per transfer. libcurl accepts 1 KiB to 10 MiB;
        /// values outside are clamped. A response collected whole takes
        /// ``collectedReceiveBufferSize`` instead.
        ///
        /// libcurl allocates it when a transfer starts and frees it when the transfer ends; it is
        /// resident only as far as responses fill it. libcurl's upload buffer, for requests with
        /// a body, stays at its default of 64 KiB.
        public var receiveBufferSize = 64 * 1024

        /// libcurl's receive buffer for a response collected whole (``CurlTransport/data(for:)``),
        /// in bytes (`CURLOPT_BUFFERSIZE`): 16 KiB by default, libcurl's own default. Clamped to
        /// 1 KiB to 10 MiB like ``receiveBufferSize``.
        ///
        /// Most collected responses are small, and each waiting request holds its buffer: with
        /// 10,000 requests in flight, a 16 KiB buffer held 2.2 KiB less per request than a
        /// 64 KiB one (docs/BENCHMARKS.md, "The engine's cost per request"). Raise it for large
        /// bodies collected in memory, which a larger buffer reads in fewer calls.
        ///
        /// A collected request that starts while its loop runs 64 transfers or more takes at
        /// most 4 KiB instead: among that many, the buffers of the requests that wait are most
        /// of what they hold (with 10,000 in flight, about 5 KiB of each request's 28 with
        /// 16 KiB), and a large body read through the smaller one costs more CPU (about a
        /// quarter more for 1 MiB) without being held back by the others (docs/BENCHMARKS.md,
        /// "What a waiting request holds"). A smaller value here stays.
        public var collectedReceiveBufferSize = 16 * 1024

        /// How many response bytes a streaming transfer buffers before it stops reading from
        /// the network until the consumer catches up: 1 MiB by default.
        ///
        /// The bound of what one streamed response can hold in memory; reading stops at this
        /// mark and resumes as the consumer drains it. It does not apply to a body collected
        /// whole (`data(for:)`), which ``/Transport/TransferOptions/maximumBodySize`` bounds.
        public var streamBufferSize = 1024 * 1024

        /// Whether HTTPS connections offer HTTP/2 (ALPN) and multiplex requests over one
        /// connection, `true` by default. Cleartext always uses HTTP/1.1 with keep-alive.
        public var allowsHTTP2 = true

        /// TLS verification and credentials.
        public var tls = TLSConfiguration()

        /// The cookie jar every request of this transport reads and fills, `nil` (no jar) by
        /// default.
        ///
        /// With a jar, each hop of a request, redirect hops included, stores the cookies of
        /// its response's `Set-Cookie` fields and sends those that match its URL, so a cookie
        /// set by a login's 302 reaches the page it redirects to. A request's own `Cookie`
        /// field is kept: the jar adds its cookies after the caller's in the same field, leaving
        /// out those whose name the caller sets. Malformed or forbidden `Set-Cookie` fields are
        /// ignored and logged at debug level on ``logger``. Several transports may share one jar.
        /// Without a jar the engine sends no cookie but the request's own and stores none.
        ///
        /// ```swift
        /// var configuration = CurlTransport.Configuration()
        /// configuration.cookieJar = CookieJar()
        /// ```
        public var cookieJar: CookieJar?

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
