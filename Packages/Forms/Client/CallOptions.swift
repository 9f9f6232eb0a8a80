public import Transport

/// What one call decides for itself, over its form and its client: for the same endpoint used
/// with different timeouts in different places, values for a presenter, or handlers on the
/// main actor.
///
/// ```swift
/// screen.request(WeatherForm.forecast(city: "Oslo"), options: CallOptions(timeout: .seconds(3)))
/// ```
public struct CallOptions: Sendable {
    /// The deadline of the whole request (each retry's attempt included); `nil` (the default)
    /// leaves it to the form, then the client.
    public var timeout: Duration?
    /// Values for the code around the request, merged over the client's
    /// ``ClientConfiguration/userInfo`` (the call's win): the request's
    /// `TransportRequest.userInfo` and the handle's `userInfo` carry them.
    public var userInfo: RequestUserInfo
    /// Where the handle's handlers run; `nil` (the default) leaves it to the client's
    /// ``ClientConfiguration/handlerExecutor``.
    public var executor: HandlerExecutor?
    /// Whether the handle delivers what the client's `HTTPCache` holds first, then the
    /// network's answer (MGJRequestManager's cached-then-fresh callbacks): `false` by default.
    ///
    /// With a stored response, the handle's first run ends with it (marked `hit` or `stale`,
    /// read it with `CacheStatus(response.head)`), and a second run starts by itself and asks
    /// the server (revalidating the stored entry), so `success` and `completion` handlers run
    /// twice. Awaiting the handle gets the outcome of the run in progress: the cached one
    /// right after it ends. Without a stored response, or without an `HTTPCache` among the
    /// client's middleware, it is an ordinary request. Requests only, not uploads or downloads.
    public var deliversCachedFirst = false
    /// Changes to the client's configuration for this call alone; `nil` (the default) for
    /// none, which costs nothing.
    ///
    /// The closure gets a copy of the configuration the call would run with (the client's,
    /// after its form's `Formable/configure(_:)`) and may change any setting in it: the
    /// transport, the base URL, headers and dynamic headers, the timeout, the retry policy,
    /// plugins, middleware, the handler and task executors, logging. The call then runs with
    /// that copy as a whole, for requests, uploads, downloads and `data(for:options:)` alike;
    /// ``timeout``, ``userInfo`` and ``executor`` still win over it, as over the client's.
    ///
    /// ```swift
    /// let options = CallOptions(configure: { client in
    ///     client.headers["X-Trace"] = "1"
    ///     client.retry = .never
    ///     client.plugins.append(AuditPlugin())
    /// })
    /// let forecast = try await api.request(form, options: options).decode(Forecast.self).value
    /// ```
    ///
    /// The configuration the call runs with travels in the request's user information as
    /// `RequestUserInfo.callConfiguration`, so that a plugin (in `willSend` and `prepare`)
    /// or a middleware can tell what this call changed.
    public var configure: (@Sendable (inout ClientConfiguration) -> Void)?

    /// Creates options; every one left out is decided by the form or the client.
    ///
    /// - Parameters:
    ///   - timeout: The deadline of the whole request.
    ///   - userInfo: Values for the code around the request.
    ///   - executor: Where the handle's handlers run.
    ///   - deliversCachedFirst: Whether the cached answer comes first, then the network's.
    ///   - configure: Changes to the client's configuration for this call alone.
    public init(
        timeout: Duration? = nil, userInfo: RequestUserInfo = RequestUserInfo(), executor: HandlerExecutor? = nil,
        deliversCachedFirst: Bool = false, configure: (@Sendable (inout ClientConfiguration) -> Void)? = nil
    ) {
        self.timeout = timeout
        self.userInfo = userInfo
        self.executor = executor
        self.deliversCachedFirst = deliversCachedFirst
        self.configure = configure
    }
}
