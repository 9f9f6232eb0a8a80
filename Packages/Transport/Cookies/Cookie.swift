public import Foundation

/// One cookie as a ``CookieJar`` stores it: the storage model of RFC 6265 §5.3.
///
/// A cookie set by a server is made by the jar from its `Set-Cookie` field; a cookie made
/// here seeds a jar (``CookieJar/add(_:)``), for instance a session obtained elsewhere.
///
/// ```swift
/// let jar = CookieJar()
/// jar.add(Cookie(name: "session", value: token, domain: "api.example.com", isSecure: true))
/// ```
///
/// The ``value`` is a secret: ``description`` never shows it.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The `SameSite` attribute, kept as data: a client that is not a browser has no
    /// "site" to compare, so the jar sends a cookie whatever its `SameSite`.
    public enum SameSite: String, Sendable, Hashable, CaseIterable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None`.
        case none = "None"
    }

    /// The cookie's name, case-sensitive.
    public var name: String
    /// The cookie's value, as the server sent it (quotes included, if any).
    public var value: String
    /// The host (``isHostOnly``) or the domain the cookie is sent to, in lowercase, without a
    /// leading dot.
    public var domain: String
    /// Whether the cookie goes to ``domain`` exactly (no `Domain` attribute was given), rather
    /// than to ``domain`` and every host under it.
    public var isHostOnly: Bool
    /// The path the cookie is sent under: to this path and every path below it.
    public var path: String
    /// Whether the cookie is sent over https only (`Secure`).
    public var isSecure: Bool
    /// Whether a browser would hide the cookie from scripts (`HttpOnly`); kept as data, and
    /// written to a cookie file as curl does (`#HttpOnly_`).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, or `nil` when the server gave none (or an unknown value).
    public var sameSite: SameSite?
    /// When the cookie expires; `nil` for a session cookie, which lives as long as its jar
    /// and is written to a file only when asked.
    public var expiresAt: Date?
    /// When the cookie was first stored (a cookie that replaces another keeps the first one's
    /// time): among cookies of equal path length, the earlier goes first in a `Cookie` field.
    public var createdAt: Date

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: The name, not empty.
    ///   - value: The value.
    ///   - domain: The host or domain (a leading dot is removed, the rest lowercased).
    ///   - isHostOnly: `true` (the default) to send the cookie to `domain` alone; `false` to send
    ///     it to every host under `domain` too.
    ///   - path: The path it is sent under, `/` by default.
    ///   - isSecure: Whether it is sent over https only, `false` by default.
    ///   - isHTTPOnly: The `HttpOnly` flag, kept as data, `false` by default.
    ///   - sameSite: The `SameSite` attribute, kept as data, `nil` by default.
    ///   - expiresAt: When it expires, `nil` (a session cookie) by default.
    ///   - createdAt: When it was made, now by default.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite? = nil, expiresAt: Date? = nil,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = Self.canonicalDomain(domain)
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    /// Whether the cookie outlives its jar's process: it has an expiry (`Max-Age` or `Expires`).
    public var isPersistent: Bool { expiresAt != nil }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }

    /// Whether the jar sends this cookie to a request for `url` (domain, path and `Secure`
    /// match, RFC 6265 §5.4), expiry aside.
    public func matches(_ url: URL) -> Bool {
        guard let parts = CookieURL(url) else { return false }
        return matches(parts)
    }

    /// `name=<redacted>; Domain=…; Path=…` and the flags: never the value.
    public var description: String {
        var text = "\(name)=<redacted>; \(isHostOnly ? "Host" : "Domain")=\(domain); Path=\(path)"
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        if let expiresAt { text += "; Expires=\(expiresAt)" }
        return text
    }

    /// A domain in its stored form: lowercase, without one leading dot.
    static func canonicalDomain(_ domain: String) -> String {
        let lowered = domain.lowercased()
        return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
    }
}
