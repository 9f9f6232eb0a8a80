public import Transport

/// The key of ``/Caching/Transport/RequestUserInfo/cacheLifetime``.
private enum CacheLifetimeKey: RequestUserInfoKey {
    typealias Value = Duration
}

extension RequestUserInfo {
    /// How long an ``HTTPCache`` may answer with a stored `200` without asking the server,
    /// whatever the response's own headers say (`no-store` excepted); `nil` (not set) leaves
    /// it to the cache's ``HTTPCache/Options/forcedLifetime``, and `.zero` turns a cache-wide
    /// forced lifetime off.
    ///
    /// It travels in the request's user information, so a client sets it for all its requests
    /// (`client.userInfo.cacheLifetime`), a form for its own (in `configure(_:)`), and a call
    /// for itself (`CallOptions.userInfo`); the server never sees it.
    public var cacheLifetime: Duration? {
        get { self[CacheLifetimeKey.self] }
        set { self[CacheLifetimeKey.self] = newValue }
    }
}

extension TransportRequest {
    /// The request's ``/Caching/Transport/RequestUserInfo/cacheLifetime``: how long an ``HTTPCache``
    /// may answer it with a stored `200` without asking the server.
    ///
    /// ```swift
    /// var request = try TransportRequest(method: .get, url: "https://api.example.com/cities")
    /// request.cacheLifetime = .seconds(300)   // this screen accepts a list five minutes old
    /// ```
    public var cacheLifetime: Duration? {
        get { userInfo.cacheLifetime }
        set { userInfo.cacheLifetime = newValue }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
