package import Foundation
package import HTTPTypes
import Transport

/// The freshness arithmetic of RFC 9111 §4.2 for one stored response: how long it stays
/// fresh, how old it is now, and whether a request may have it without asking the server.
///
/// Everything is in seconds, as `TimeInterval`. The calculation reads only the stored head and
/// the times the cache recorded around the exchange that produced it, so it is a value that
/// tests build directly.
package struct Freshness: Sendable, Hashable {
    /// Where the freshness lifetime came from.
    package enum Source: Sendable, Hashable {
        /// `Cache-Control: max-age` (a malformed or conflicting one gives zero).
        case maxAge
        /// `Expires` minus `Date` (a malformed `Expires` gives zero).
        case expires
        /// 10 % of the time since `Last-Modified`, capped (RFC 9111 §4.2.2).
        case heuristic
        /// The cache's or the request's forced lifetime, for a `200` only.
        case forced
        /// No explicit lifetime and no heuristic allowed: stale at once.
        case none
    }

    /// The statuses RFC 9110 §15.1 defines as heuristically cacheable, less `206`, which the
    /// cache never stores.
    package static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// The freshness lifetime (§4.2.1), in seconds, never negative.
    package var lifetime: TimeInterval
    /// Where ``lifetime`` came from.
    package var source: Source
    /// The current age (§4.2.3), in seconds, never negative.
    package var currentAge: TimeInterval

    /// Whether the response is fresh: its lifetime exceeds its current age.
    package var isFresh: Bool { lifetime > currentAge }
    /// How long ago it became stale, in seconds; zero while fresh.
    package var staleness: TimeInterval { max(0, currentAge - lifetime) }

    /// Computes the lifetime and the current age of a stored response.
    ///
    /// - Parameters:
    ///   - head: The stored response head.
    ///   - requestTime: When the request that produced it was sent (`request_time`).
    ///   - responseTime: When the response was received (`response_time`).
    ///   - now: The current time.
    ///   - forcedLifetime: A lifetime to use instead of the headers' for a `200`, or `nil`.
    ///   - heuristicCap: The longest heuristic lifetime, in seconds.
    package init(
        head: HTTPResponse, requestTime: Date, responseTime: Date, now: Date, forcedLifetime: TimeInterval? = nil,
        heuristicCap: TimeInterval
    ) {
        if let forcedLifetime, head.status.code == 200 {
            (lifetime, source) = (max(0, forcedLifetime), .forced)
        } else {
            (lifetime, source) = Self.lifetime(of: head, responseTime: responseTime, heuristicCap: heuristicCap)
        }
        currentAge = Self.currentAge(of: head, requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// The freshness lifetime of RFC 9111 §4.2.1, with the heuristic of §4.2.2.
    ///
    /// `s-maxage` is ignored (this is a private cache). More than one `max-age` with different
    /// values, or one that is not delta-seconds, makes the response stale; so does an `Expires`
    /// that is not an HTTP date (§5.3). Without `Date`, the time the response arrived stands in
    /// for it.
    package static func lifetime(of head: HTTPResponse, responseTime: Date, heuristicCap: TimeInterval)
        -> (TimeInterval, Source)
    {
        let fields = head.headerFields
        let control = CacheControl(fields)
        switch control.maxAge {
        case .seconds(let seconds): return (TimeInterval(seconds), .maxAge)
        case .invalid: return (0, .maxAge)
        case nil: break
        }
        let dateValue = date(fields[.date]) ?? responseTime.timeIntervalSince1970
        let expiresValues = fields[values: .expires]
        if let expires = expiresValues.first {
            guard Set(expiresValues).count == 1, let expiry = date(expires) else { return (0, .expires) }
            return (max(0, expiry - dateValue), .expires)
        }
        let heuristicAllowed =
            heuristicallyCacheableStatuses.contains(head.status.code) || control.isPublic
        if heuristicAllowed, !control.noCache, let lastModified = fields[.lastModified].flatMap(date),
            lastModified <= dateValue
        {
            return (min(heuristicCap, (dateValue - lastModified) / 10), .heuristic)
        }
        return (0, .none)
    }

    /// The current age of RFC 9111 §4.2.3:
    ///
    /// ```
    /// apparent_age = max(0, response_time - date_value)
    /// corrected_age_value = age_value + (response_time - request_time)
    /// corrected_initial_age = max(apparent_age, corrected_age_value)
    /// current_age = corrected_initial_age + (now - response_time)
    /// ```
    ///
    /// `age_value` is the first member of `Age`, ignored (zero) when it is not delta-seconds
    /// (§5.1); `date_value` is `Date`, or `response_time` when it is missing or malformed.
    package static func currentAge(of head: HTTPResponse, requestTime: Date, responseTime: Date, now: Date)
        -> TimeInterval
    {
        let fields = head.headerFields
        let response = responseTime.timeIntervalSince1970
        let dateValue = date(fields[.date]) ?? response
        let ageValue = fields[values: .age].first.flatMap(ageSeconds) ?? 0
        let apparentAge = max(0, response - dateValue)
        let responseDelay = max(0, response - requestTime.timeIntervalSince1970)
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince1970 - response)
        return correctedInitialAge + residentTime
    }

    /// An HTTP date as seconds since 1970, or `nil`.
    package static func date(_ text: String?) -> TimeInterval? {
        guard let text else { return nil }
        return HTTPDate.secondsSince1970(text.trimmingSpaces()).map(TimeInterval.init)
    }

    /// The first member of an `Age` value as seconds, or `nil` when it is not delta-seconds.
    private static func ageSeconds(_ value: String) -> TimeInterval? {
        let first = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return CacheControl.deltaSeconds(String(first).trimmingSpaces()).map(TimeInterval.init)
    }
}
