package import Foundation

/// What the cookie rules read of a request's URL: its host, its path and whether it is https.
package struct CookieURL: Sendable, Equatable {
    /// The host, in lowercase, without a port, brackets (IPv6) or a trailing dot.
    package let host: String
    /// The path, without the query, `/` when empty.
    package let path: String
    /// Whether the scheme is `https`.
    package let isSecure: Bool
    /// Whether ``host`` is an IP address rather than a name (no domain matching beyond equality).
    package let isIPAddress: Bool

    /// The parts of a request's scheme, authority (`host`, `host:port`, `[v6]:port`) and path
    /// (with or without a query), or `nil` without a host.
    package init?(scheme: String?, authority: String?, path: String?) {
        guard let authority, !authority.isEmpty else { return nil }
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        var isIPv6 = false
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
            isIPv6 = true
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        if host.last == "." { host = host.dropLast() }
        guard !host.isEmpty else { return nil }
        self.host = host.lowercased()
        self.isSecure = scheme?.lowercased() == "https"
        self.isIPAddress = isIPv6 || Self.isIPv4(self.host)
        var requestPath = Substring(path ?? "/")
        if let query = requestPath.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            requestPath = requestPath[..<query]
        }
        self.path = requestPath.isEmpty ? "/" : String(requestPath)
    }

    /// The parts of `url`, or `nil` when it has no host.
    package init?(_ url: URL) {
        var authority = url.host ?? ""
        if authority.contains(":") && !authority.hasPrefix("[") { authority = "[\(authority)]" }
        self.init(scheme: url.scheme, authority: authority, path: url.path)
    }

    /// Whether `host` is four dot-separated decimal numbers.
    private static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    }
}
