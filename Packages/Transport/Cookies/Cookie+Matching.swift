import Foundation

// Which requests a cookie goes to: RFC 6265 §5.1.3 (domain), §5.1.4 (paths) and §5.4.
extension Cookie {
    /// Whether the cookie goes to a request for `url`: its host matches (exactly for a
    /// host-only cookie, or by domain), its path matches, and it is not `Secure` unless the
    /// request is https. Expiry is the jar's concern.
    package func matches(_ url: CookieURL) -> Bool {
        if isSecure && !url.isSecure { return false }
        if isHostOnly {
            guard url.host == domain else { return false }
        } else {
            guard Self.domainMatches(host: url.host, isIPAddress: url.isIPAddress, domain: domain) else { return false }
        }
        return Self.pathMatches(requestPath: url.path, cookiePath: path)
    }

    /// RFC 6265 §5.1.3: the host is the domain, or a name (not an IP address) that ends with
    /// `.` and the domain.
    package static func domainMatches(host: String, isIPAddress: Bool, domain: String) -> Bool {
        if host == domain { return true }
        guard !isIPAddress, host.utf8.count > domain.utf8.count + 1, host.hasSuffix(domain) else { return false }
        let dot = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[dot] == UInt8(ascii: ".")
    }

    /// RFC 6265 §5.1.4: the paths are equal, or the cookie's is a prefix of the request's that
    /// ends with `/` or is followed by `/` in it.
    package static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        let next = requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return requestPath.utf8[next] == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4: the default path of a cookie set in answer to `requestPath` (without
    /// a query): up to, not including, its last `/`, or `/`.
    package static func defaultPath(of requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"),
            last != requestPath.startIndex
        else { return "/" }
        return String(requestPath[..<last])
    }
}
