public import HTTPTypes
public import Transport

extension TransportRequest {
    // swift-format-ignore: NeverForceUnwrap
    /// `X-Parley-Cache-Lifetime`, the request header that carries ``cacheLifetime``.
    public static let cacheLifetimeHeaderName = HTTPField.Name("X-Parley-Cache-Lifetime")!

    /// How long an ``HTTPCache`` may answer this request with a stored `200` without asking the
    /// server, whatever the response's own headers say (`no-store` excepted); `nil` (not set)
    /// leaves it to the cache's ``HTTPCache/Options/forcedLifetime``, and `.zero` turns a
    /// cache-wide forced lifetime off for this request.
    ///
    /// It travels as the header `X-Parley-Cache-Lifetime: <seconds>` (rounded up to a whole
    /// second), which the cache reads and removes before the request goes on, so the server
    /// never sees it. Without an ``HTTPCache`` in the chain, the header is sent as it is.
    ///
    /// ```swift
    /// var request = try TransportRequest(method: .get, url: "https://api.example.com/cities")
    /// request.cacheLifetime = .seconds(300)   // this screen accepts a list five minutes old
    /// ```
    public var cacheLifetime: Duration? {
        get {
            guard let value = head.headerFields[Self.cacheLifetimeHeaderName] else { return nil }
            guard let seconds = CacheControl.deltaSeconds(value.trimmingSpaces()) else { return nil }
            return .seconds(seconds)
        }
        set {
            guard let newValue else {
                head.headerFields[Self.cacheLifetimeHeaderName] = nil
                return
            }
            head.headerFields[Self.cacheLifetimeHeaderName] = String(newValue.wholeSecondsRoundedUp)
        }
    }
}

extension Duration {
    /// The duration in whole seconds, a fraction rounded up, never negative.
    var wholeSecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return attoseconds > 0 ? seconds + 1 : seconds
    }

    /// The duration in seconds, as a `Double`.
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
