public import Logging
public import Retry
public import Transport

/// What every request of an application shares: where it goes, what it carries, and what
/// sends it. Set once at start-up with ``ClientSystem/bootstrap(_:)``; a type can supply
/// its own through ``Requestable/clientConfiguration``.
///
/// ```swift
/// var client = ClientConfiguration(transport: try CurlTransport(), baseURL: "https://api.example.com")
/// client.headers = ["Accept": "application/json"]
/// client.dynamicHeaders = { ["Authorization": "Bearer \(await session.token)"] }
/// client.commonParameters = { ["app_version": "2.1.0"] }
/// try ClientSystem.bootstrap(client)
/// ```
///
/// ## The interception chain
///
/// Every request and upload runs through one onion of `TransportMiddleware` links, outermost
/// first:
///
/// 1. the ``plugins``' hooks (and ``LoggingPlugin`` when ``isLoggingEnabled``), compiled into
///    links: they see the logical request once and the answer that stands;
/// 2. the retries of ``retry``: every attempt runs through what follows again;
/// 3. the ``middleware``, in the list's order: observers (metrics, tracing) first, then
///    authentication (`AuthenticationMiddleware`), the cache (`HTTPCache`) and a concurrency
///    limit (`ConcurrencyLimit`);
/// 4. the ``transport``: the engine, or in-flight sharing around it (`InFlightSharing`, with a
///    concurrency limit under it rather than in ``middleware``, so that a shared transfer takes
///    one slot).
public struct ClientConfiguration: Sendable {
    /// The engine that performs transfers.
    public var transport: any HTTPTransport {
        get { fields.values.transport }
        set { change { $0.transport = newValue } }
    }
    /// The base URL of forms that name none, such as `https://api.example.com`.
    public var baseURL: String {
        get { fields.values.baseURL }
        set { change { $0.baseURL = newValue } }
    }
    /// Header fields sent with every request; a form's own headers win.
    public var headers: [String: String] {
        get { fields.values.headers }
        set { change { $0.headers = newValue } }
    }
    /// Header fields computed for each request (a token, a location); they win over
    /// ``headers`` and lose to a form's own. None by default.
    public var dynamicHeaders: @Sendable () async -> [String: String] {
        get { fields.values.dynamicHeaders }
        set {
            change {
                $0.dynamicHeaders = newValue
                $0.hasDynamicHeaders = true
            }
        }
    }
    /// Parameters added to every request (a token, the app version), encoded like the form's
    /// own, which win on a clash. None by default.
    public var commonParameters: @Sendable () -> Parameters {
        get { fields.values.commonParameters }
        set { change { $0.commonParameters = newValue } }
    }
    /// The deadline of each request unless its form sets one; `nil` (the default) leaves the
    /// deadline to ``transferOptions`` and then to the engine's defaults, which set none unless
    /// configured to.
    public var timeout: Duration? {
        get { fields.values.timeout }
        set { change { $0.timeout = newValue } }
    }
    /// The options every request starts from (connect and stall timeouts, size limits, redirects).
    ///
    /// Nothing is set by default. Only the options set here are applied to requests, where they
    /// win over the engine's defaults; the others are left to the engine (for `CurlTransport`,
    /// its `Configuration.defaultOptions`).
    public var transferOptions: TransferOptions {
        get { fields.values.transferOptions }
        set { change { $0.transferOptions = newValue } }
    }
    /// When requests and uploads are sent again after a failure: ``/Retry/RetryPolicy``'s
    /// defaults (3 retries with jittered backoff, idempotent methods or an `Idempotency-Key`,
    /// network failures and 408, 429, 500, 502, 503, 504). ``/Retry/RetryPolicy/never`` turns
    /// retrying off.
    ///
    /// Each attempt runs through ``middleware`` and the transport again; the ``plugins``
    /// see the request once and the response that stands. Downloads retry under this policy too,
    /// resuming between attempts, unless their form's `downloadOptions.retry` names another.
    public var retry: RetryPolicy {
        get { fields.values.retry }
        set { change { $0.retry = newValue } }
    }
    /// Values every request and handle of the client carries (see `RequestUserInfo`); a
    /// call's ``CallOptions/userInfo`` win. Mapping reads its default decoder from here
    /// (`userInfo.responseDecoder`). None by default.
    public var userInfo: RequestUserInfo {
        get { fields.values.userInfo }
        set { change { $0.userInfo = newValue } }
    }
    /// Where the handlers of the client's handles run, unless a call names its own executor:
    /// `nil` (the default) for the thread that finished the request, `.mainActor` for the
    /// main thread.
    public var handlerExecutor: HandlerExecutor? {
        get { fields.values.handlerExecutor }
        set { change { $0.handlerExecutor = newValue } }
    }
    /// Where the operations of the client's handles run (building the request, the plugins,
    /// the retries, decoding): `nil` (the default) for Swift's global executor. Callers that
    /// mostly send requests and wait for them, one after another, can name the engine's own
    /// thread (`CurlTransport.taskExecutor`) and their tasks' preference for it: a request
    /// then costs no thread hop at all. Keep decoding of large bodies off such a client,
    /// since nothing else the engine does moves while it runs.
    public var taskExecutor: (any TaskExecutor)? {
        get { fields.values.taskExecutor }
        set { change { $0.taskExecutor = newValue } }
    }
    /// Hooks around every request, in order; none by default. They compile into the outermost
    /// links of the client's interception chain, outside the retries.
    public var plugins: [any Plugin] {
        get { fields.values.plugins }
        set { change { $0.plugins = newValue } }
    }
    /// The links every attempt runs through, between the retries and the ``transport``,
    /// outermost first: observers, authentication, the cache, a concurrency limit. None by
    /// default.
    public var middleware: [any TransportMiddleware] {
        get { fields.values.middleware }
        set { change { $0.middleware = newValue } }
    }
    /// The links a request or an upload runs through once, between the ``plugins`` and the
    /// retries, outermost first: what must see the logical request whatever number of attempts
    /// it takes, such as a span or a metric per request (`RequestTelemetry`). None by default.
    /// A download's body goes to a file, not through the collected path: downloads skip them.
    public var requestMiddleware: [any TransportMiddleware] {
        get { fields.values.requestMiddleware }
        set { change { $0.requestMiddleware = newValue } }
    }
    /// Where ``LoggingPlugin`` writes when ``isLoggingEnabled`` is on.
    public var logger: Logger {
        get { fields.values.logger }
        set { change { $0.logger = newValue } }
    }
    /// Whether requests and responses are logged through ``logger`` (credentials redacted);
    /// `false` by default.
    public var isLoggingEnabled: Bool {
        get { fields.values.isLoggingEnabled }
        set { change { $0.isLoggingEnabled = newValue } }
    }
    /// The client's requests, uploads and downloads in flight, to cancel them by kind
    /// (`requests.cancelAll()`, `requests.cancel(method:url:)`, `requests.cancel(where:)`;
    /// ``ClientSystem`` and ``Requestable`` have the same): made with the configuration and
    /// shared by its copies; assign a new `RequestRegistry` to make a copy a client of its own.
    public var requests: RequestRegistry {
        get { fields.values.requests }
        set { change { $0.requests = newValue } }
    }
    /// Whether ``dynamicHeaders`` was set: a request without them calls no closure for them.
    var hasDynamicHeaders: Bool { fields.values.hasDynamicHeaders }

    /// The settings, in one immutable object that the configuration's copies share: every
    /// request keeps a copy of its client's configuration, which so costs one reference count
    /// rather than one for each list, closure, string and existential it holds. A setter makes
    /// a new object.
    private var fields: Fields

    private final class Fields: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    /// What the configuration holds, with the defaults the properties above document.
    private struct Values: Sendable {
        var transport: any HTTPTransport
        var baseURL: String
        var headers: [String: String] = [:]
        var dynamicHeaders: @Sendable () async -> [String: String] = { [:] }
        var commonParameters: @Sendable () -> Parameters = { [:] }
        var timeout: Duration?
        var transferOptions = TransferOptions()
        var retry = RetryPolicy()
        var userInfo = RequestUserInfo()
        var handlerExecutor: HandlerExecutor?
        var taskExecutor: (any TaskExecutor)?
        var plugins: [any Plugin] = []
        var middleware: [any TransportMiddleware] = []
        var requestMiddleware: [any TransportMiddleware] = []
        var logger = Logger(label: "parley.forms")
        var isLoggingEnabled = false
        var requests = RequestRegistry()
        var hasDynamicHeaders = false

        init(transport: any HTTPTransport, baseURL: String) {
            self.transport = transport
            self.baseURL = baseURL
        }
    }

    /// Makes the settings anew with `body`'s change.
    private mutating func change(_ body: (inout Values) -> Void) {
        var values = fields.values
        body(&values)
        fields = Fields(values)
    }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - transport: The engine, such as `CurlTransport()`.
    ///   - baseURL: The base URL of forms that name none.
    public init(transport: any HTTPTransport, baseURL: String) {
        fields = Fields(Values(transport: transport, baseURL: baseURL))
    }

    /// The transport wrapped in the middleware, when there is any.
    var sendingTransport: any HTTPTransport {
        middleware.isEmpty ? transport : MiddlewareTransport(transport, middleware: middleware)
    }

    /// Every plugin that runs: the configured ones, then the logging plugin when enabled.
    var activePlugins: [any Plugin] {
        isLoggingEnabled ? plugins + [LoggingPlugin(logger: logger)] : plugins
    }
}
