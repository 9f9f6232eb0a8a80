/// A proxy that requests go through: an HTTP proxy, or a SOCKS5 proxy.
///
/// Through an HTTP proxy, an `http` request is forwarded by the proxy and an `https` request
/// goes through a tunnel (`CONNECT host:443`), so the proxy sees neither its path nor its
/// headers; ``tunnelsEveryRequest`` tunnels `http` requests too. A SOCKS5 proxy relays the
/// connection; with ``Kind/socks5h`` (``socks5(host:port:resolvesNamesRemotely:)``'s default)
/// the proxy resolves the host name, so the client's DNS never sees it.
///
/// ```swift
/// var proxy = Proxy.http(host: "proxy.internal", port: 3128)
/// proxy.credentials = .basic(user: "build", password: proxyPassword)
/// proxy.bypass = ["localhost", ".internal"]
/// request.options.proxy = .proxy(proxy)
/// ```
///
/// The proxy's password is never logged, shown in an error or rendered in a `curl` command
/// unless asked for; ``description`` names the proxy without it.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The protocol spoken to the proxy.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP proxy, spoken to in cleartext: `http` requests are forwarded, `https` ones tunnelled.
        case http
        /// A SOCKS5 proxy that is given an IP address: the client resolves host names itself.
        case socks5
        /// A SOCKS5 proxy that is given the host name and resolves it itself (remote DNS).
        case socks5h
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials the proxy asks for (`Proxy-Authorization`, or SOCKS5's user and password);
    /// `nil` by default. An HTTP proxy takes ``HTTPCredentials/Scheme/basic`` or
    /// ``HTTPCredentials/Scheme/digest``; SOCKS5 takes the user and password whatever the scheme.
    public var credentials: HTTPCredentials?
    /// Hosts reached directly rather than through the proxy, as libcurl's no-proxy list reads
    /// them: a host name matches itself and its subdomains (`example.com` matches
    /// `api.example.com`; a leading dot is allowed), an IP address matches itself, and `*`
    /// matches every host. Empty by default.
    public var bypass: [String]
    /// Whether `http` requests are tunnelled through an HTTP proxy with `CONNECT` too, as `https`
    /// ones always are; `false` by default.
    public var tunnelsEveryRequest: Bool

    /// Creates a proxy.
    ///
    /// - Parameters:
    ///   - kind: The protocol spoken to the proxy.
    ///   - host: The proxy's host name or IP address.
    ///   - port: The proxy's port.
    ///   - credentials: The credentials the proxy asks for; none by default.
    ///   - bypass: Hosts reached directly; none by default.
    ///   - tunnelsEveryRequest: Whether `http` requests are tunnelled too; `false` by default.
    public init(
        kind: Kind, host: String, port: Int, credentials: HTTPCredentials? = nil, bypass: [String] = [],
        tunnelsEveryRequest: Bool = false
    ) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
        self.bypass = bypass
        self.tunnelsEveryRequest = tunnelsEveryRequest
    }

    /// An HTTP proxy.
    ///
    /// - Parameters:
    ///   - host: The proxy's host name or IP address.
    ///   - port: The proxy's port; 3128 (Squid's) by default.
    public static func http(host: String, port: Int = 3128) -> Proxy {
        Proxy(kind: .http, host: host, port: port)
    }

    /// A SOCKS5 proxy.
    ///
    /// - Parameters:
    ///   - host: The proxy's host name or IP address.
    ///   - port: The proxy's port; 1080 by default.
    ///   - resolvesNamesRemotely: Whether the proxy resolves host names (``Kind/socks5h``, the
    ///     default) rather than the client (``Kind/socks5``).
    public static func socks5(host: String, port: Int = 1080, resolvesNamesRemotely: Bool = true) -> Proxy {
        Proxy(kind: resolvesNamesRemotely ? .socks5h : .socks5, host: host, port: port)
    }

    /// The proxy as a URL without credentials, `kind://host:port`, as libcurl's `CURLOPT_PROXY`
    /// and curl's `--proxy` take it.
    public var url: String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(bracketed):\(port)"
    }

    /// ``url``, and the user name when there are credentials, never the password.
    public var description: String {
        guard let credentials else { return url }
        return "\(url) (user \(credentials.user))"
    }
}

/// Whether and how a transfer goes through a proxy: ``TransferOptions/proxy``.
public enum ProxySetting: Sendable, Hashable, CustomStringConvertible {
    /// The proxy the environment names, as curl reads it: `http_proxy` for `http` URLs,
    /// `https_proxy` (or `HTTPS_PROXY`) for `https` ones, `ALL_PROXY` (or `all_proxy`) for both
    /// when those are unset, and `no_proxy` (or `NO_PROXY`) for hosts reached directly. The
    /// default. `HTTP_PROXY` in capitals is ignored, as curl ignores it (a CGI program's
    /// environment can set it from a request's `Proxy:` header). A transport may read the
    /// environment once, when it is made (`CurlTransport` does): set a proxy variable before
    /// making the transport that should use it.
    case environment
    /// No proxy at all, whatever the environment says.
    case direct
    /// This proxy, whatever the environment says.
    case proxy(Proxy)

    /// `environment`, `direct`, or the proxy's ``Proxy/description`` (never its password).
    public var description: String {
        switch self {
        case .environment: "environment"
        case .direct: "direct"
        case .proxy(let proxy): proxy.description
        }
    }

    /// The proxy, when the setting names one.
    public var proxy: Proxy? {
        if case .proxy(let proxy) = self { return proxy }
        return nil
    }
}
