/// Why a ``CookieJar`` ignored a `Set-Cookie` field or a cookie it was given.
///
/// A server's malformed or forbidden cookie never fails its response: the jar drops it and
/// says why, and the engine logs that at debug level. The reason names the cookie and the
/// host, never the value.
public struct CookieRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name, when the field had one.
    public let name: String?
    /// The host that sent it.
    public let host: String
    /// What was wrong, as a sentence.
    public let reason: String

    /// Creates a rejection.
    package init(name: String?, host: String, reason: String) {
        self.name = name
        self.host = host
        self.reason = reason
    }

    /// `cookie "name" from host ignored: reason`.
    public var description: String {
        let what = name.map { "cookie \"\($0.prefix(64))\"" } ?? "a Set-Cookie field"
        return "\(what) from \(host) ignored: \(reason)"
    }
}
