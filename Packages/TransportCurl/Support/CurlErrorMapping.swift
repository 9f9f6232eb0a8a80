import CCurl
import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a libcurl result code into a ``TransportError`` a person can act on.
///
/// The mapping itself is pure: ``error(for:facts:url:options:elapsed:headIsComplete:)`` decides
/// from the code and the few ``Facts`` read from the handle, so it can be tested as a table.
enum CurlErrorMapping {
    /// What the mapping reads from a failed transfer's handle besides its code.
    struct Facts: Sendable, Equatable {
        /// libcurl's own detail message (its error buffer, or the code's description).
        var detail: String
        /// Whether the connection was established (`CURLINFO_PRETRANSFER_TIME_T` above zero).
        var wasConnected: Bool
        /// Whether the failure looks like plain HTTP sent to a TLS port
        /// (``looksLikePlainHTTPSentToTLS(handle:url:)``).
        var looksLikePlainHTTPSentToTLS: Bool
        /// Whether the transfer failed because the process had no file descriptor left for its
        /// socket (``ranOutOfDescriptors(code:osErrno:)``).
        var ranOutOfDescriptors: Bool
        /// The proxy the transfer went through, named without its password
        /// (``proxyName(for:url:)``); `nil` for a direct connection.
        var proxy: String?
        /// The status a proxy answered to `CONNECT` (`CURLINFO_HTTP_CONNECTCODE`), 0 when none.
        var proxyConnectStatus = 0
        /// libcurl's `CURLproxycode` for a SOCKS failure (`CURLINFO_PROXY_ERROR`), 0 when none.
        var proxyFailureCode = 0
        /// The process's file-descriptor limit, the soft `RLIMIT_NOFILE`, read when
        /// ``ranOutOfDescriptors`` is `true`; `nil` otherwise, or when it is unlimited or unreadable.
        var descriptorLimit: Int?
        /// Whether the engine itself refused the socket, which the system had numbered in the
        /// ``DescriptorReserve`` (the process was near its limit, not at it).
        var keptReserve = false

        /// The facts of a failure on `handle`.
        init(handle: CurlEasyHandle, code: CURLcode, url: String) {
            detail = handle.errorMessage ?? String(cString: curl_easy_strerror(code))
            var preTransfer: curl_off_t = 0
            _ = parley_easy_getinfo_off_t(handle.pointer, CURLINFO_PRETRANSFER_TIME_T, &preTransfer)
            wasConnected = preTransfer > 0
            looksLikePlainHTTPSentToTLS =
                CurlErrorMapping.suspectsPlainHTTPToTLS(code)
                && CurlErrorMapping.looksLikePlainHTTPSentToTLS(handle: handle, url: url)
            var osErrno = 0
            _ = parley_easy_getinfo_long(handle.pointer, CURLINFO_OS_ERRNO, &osErrno)
            if let limit = handle.refusedAtDescriptorLimit, code == CURLE_COULDNT_CONNECT {
                ranOutOfDescriptors = true
                keptReserve = true
                descriptorLimit = limit
            } else {
                ranOutOfDescriptors = CurlErrorMapping.ranOutOfDescriptors(
                    code: code, osErrno: Int32(truncatingIfNeeded: osErrno))
                descriptorLimit = ranOutOfDescriptors ? CurlErrorMapping.descriptorLimit() : nil
            }
            var connectStatus = 0
            _ = parley_easy_getinfo_long(handle.pointer, CURLINFO_HTTP_CONNECTCODE, &connectStatus)
            proxyConnectStatus = connectStatus
            var proxyCode = 0
            _ = parley_easy_getinfo_long(handle.pointer, CURLINFO_PROXY_ERROR, &proxyCode)
            proxyFailureCode = proxyCode
        }

        /// Facts given outright.
        init(
            detail: String, wasConnected: Bool, looksLikePlainHTTPSentToTLS: Bool, ranOutOfDescriptors: Bool = false,
            descriptorLimit: Int? = nil, keptReserve: Bool = false, proxy: String? = nil, proxyConnectStatus: Int = 0,
            proxyFailureCode: Int = 0
        ) {
            self.keptReserve = keptReserve
            self.proxy = proxy
            self.proxyConnectStatus = proxyConnectStatus
            self.proxyFailureCode = proxyFailureCode
            self.detail = detail
            self.wasConnected = wasConnected
            self.looksLikePlainHTTPSentToTLS = looksLikePlainHTTPSentToTLS
            self.ranOutOfDescriptors = ranOutOfDescriptors
            self.descriptorLimit = descriptorLimit
        }
    }

    /// The error for a failed transfer.
    ///
    /// - Parameters:
    ///   - code: libcurl's result.
    ///   - handle: The transfer's handle, for timings and libcurl's own detail message.
    ///   - url: The URL of the failed hop.
    ///   - options: The transfer's options, to name the limit that was hit.
    ///   - elapsed: Time since the transfer started (redirects included).
    ///   - headIsComplete: Whether the header callback had seen the end of the hop's final head.
    static func error(
        for code: CURLcode,
        handle: CurlEasyHandle,
        url: String,
        options: TransferOptions,
        elapsed: Duration,
        headIsComplete: Bool
    ) -> TransportError {
        var facts = Facts(handle: handle, code: code, url: url)
        facts.proxy = proxyName(for: options, url: url)
        return error(
            for: code, facts: facts, url: url, options: options, elapsed: elapsed, headIsComplete: headIsComplete)
    }

    /// The error for a failed transfer, from its code and the facts read from its handle.
    ///
    /// - Parameters:
    ///   - code: libcurl's result.
    ///   - facts: What the handle told about the failure.
    ///   - url: The URL of the failed hop.
    ///   - options: The transfer's options, to name the limit that was hit.
    ///   - elapsed: Time since the transfer started (redirects included).
    ///   - headIsComplete: Whether the header callback had seen the end of the hop's final head.
    static func error(
        for code: CURLcode,
        facts: Facts,
        url: String,
        options: TransferOptions,
        elapsed: Duration,
        headIsComplete: Bool
    ) -> TransportError {
        let detail = facts.detail
        let host = hostAndPort(of: url)
        let curlCode = Int(code.rawValue)
        func make(_ category: TransportError.Category, _ message: String, reached: Bool = true) -> TransportError {
            TransportError(category, message: message, url: url, curlCode: curlCode, mayHaveReachedServer: reached)
        }

        if facts.ranOutOfDescriptors {
            let limit = facts.descriptorLimit.map { "its limit, RLIMIT_NOFILE, is \($0)" } ?? "RLIMIT_NOFILE"
            let what: String
            if facts.keptReserve, let count = facts.descriptorLimit {
                what =
                    "The process is near the end of its file descriptors (\(limit), and the engine leaves the "
                    + "last \(DescriptorReserve.size(forLimit: count)) to the rest of the process), so no socket was "
                    + "opened for \(host)."
            } else {
                what =
                    "The process ran out of file descriptors (\(limit)), so no socket could be opened for \(host) "
                    + "(\(detail))."
            }
            return make(
                .outOfDescriptors,
                what + " Every open connection, file and pipe of the process takes one. Raise the limit "
                    + "(ulimit -n, or LimitNOFILE= for a systemd service), or lower CurlTransport.Configuration's "
                    + "maximumConnectionsPerHost or maximumTotalConnections so that fewer connections are open at once.",
                reached: false)
        }

        if let socket = options.unixSocketPath, code == CURLE_COULDNT_CONNECT {
            return make(
                .connectionRefused,
                "Could not connect to the Unix domain socket \(socket) for \(host) (\(detail)). Check that the "
                    + "server listens on that path and that this process may open it (TransferOptions.unixSocketPath).",
                reached: false)
        }
        if let proxy = facts.proxy, let error = proxyError(for: code, facts: facts, proxy: proxy, url: url) {
            return error
        }

        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return make(
                .dnsFailure,
                "The host name in \(host) could not be resolved (\(detail)). Check the spelling of "
                    + "the host and the machine's DNS settings.", reached: false)
        case CURLE_COULDNT_RESOLVE_PROXY:
            return make(
                .dnsFailure,
                "The proxy's host name could not be resolved (\(detail)). Check the proxy settings "
                    + "(http_proxy, https_proxy).", reached: false)
        case CURLE_COULDNT_CONNECT:
            return make(
                .connectionRefused,
                "Could not connect to \(host) (\(detail)). Check that the server is running "
                    + "and listening on that port, and that no firewall blocks it.", reached: false)
        case CURLE_OPERATION_TIMEDOUT:
            return timeout(
                wasConnected: facts.wasConnected, host: host, url: url, options: options, elapsed: elapsed,
                curlCode: curlCode)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
            return make(
                .tlsFailure, "The TLS connection to \(host) failed: \(detail). Hint: \(tlsHint(code))",
                reached: false)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            if facts.looksLikePlainHTTPSentToTLS {
                return make(
                    .connectionReset,
                    "The server at \(host) reset a new connection before sending any response (\(detail)). "
                        + "Many TLS servers answer plain HTTP that way, so it may expect https://\(host)/. Check "
                        + "the URL's scheme and port first: if they are wrong, every retry fails the same way; if "
                        + "they are right, the server or a proxy reset the connection.")
            }
            return make(
                .connectionReset,
                "The connection to \(host) broke during the transfer (\(detail)). The server "
                    + "or a proxy closed or reset it; retrying an idempotent request is usually safe.")
        case CURLE_SEND_FAIL_REWIND:
            // libcurl sends a request again by itself when a reused connection closed before
            // answering; a streamed body cannot be read twice, so that resend fails here.
            return make(
                .connectionReset,
                "The connection to \(host) closed before the server answered, and the streamed request body "
                    + "cannot be sent again on a new connection from where it was (\(detail)). The server may "
                    + "have received part of it; sending the request again with a new stream is safe only for an "
                    + "idempotent request (or one with an Idempotency-Key).")
        case CURLE_PARTIAL_FILE:
            return make(
                .incompleteBody,
                "The server at \(host) closed the connection before sending the whole body "
                    + "(\(detail)). The response is incomplete; retry, or resume a download with a Range request.")
        case CURLE_GOT_NOTHING:
            if facts.looksLikePlainHTTPSentToTLS {
                return make(
                    .emptyReply,
                    "The server at \(host) closed a new connection without sending a response. Some TLS "
                        + "servers answer plain HTTP that way, so it may expect https://\(host)/; check the URL's "
                        + "scheme and port. If they are right, the server crashed or rejected the request; check "
                        + "its logs.")
            }
            return make(
                .emptyReply,
                "The server at \(host) closed the connection without sending a response. It may "
                    + "have crashed or rejected the request; check its logs.")
        case CURLE_BAD_CONTENT_ENCODING:
            return make(
                .badContentEncoding,
                "The body from \(url) could not be decoded (\(detail)). The server's "
                    + "Content-Encoding does not match its body; set TransferOptions.decodesContent to false to receive the "
                    + "raw bytes.")
        case CURLE_TOO_MANY_REDIRECTS:
            return make(.tooManyRedirects, "\(url) redirected too many times (\(detail)).")
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Schemes are validated before a transfer starts, so libcurl reports this for a
            // reply it will not speak, such as an HTTP/0.9 response with no status line.
            if facts.looksLikePlainHTTPSentToTLS {
                return make(
                    .invalidResponse,
                    "The server at \(host) answered with bytes that are not HTTP (\(detail)), as a TLS server "
                        + "answers plain HTTP with a TLS alert. It may expect https://\(host)/, or the port may "
                        + "belong to another service: check the URL's scheme and port.")
            }
            return make(
                .invalidResponse,
                "The server at \(host) did not answer in HTTP/1.x or HTTP/2 (\(detail)). "
                    + "Check that the URL points at an HTTP server and the port is right.")
        case CURLE_URL_MALFORMAT:
            return make(.invalidURL, "The URL \(url) is malformed (\(detail)).", reached: false)
        case CURLE_FILESIZE_EXCEEDED:
            return make(.responseTooLarge, "The response from \(url) is larger than allowed (\(detail)).")
        case CURLE_ABORTED_BY_CALLBACK:
            return make(.cancelled, "The request to \(url) was cancelled before it completed.")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return make(
                .invalidResponse,
                "The server at \(host) sent a response that breaks the HTTP protocol "
                    + "(\(detail)).")
        case CURLE_OUT_OF_MEMORY where !headIsComplete:
            // libcurl 7.88.1 gathers each header line in a buffer capped at CURL_MAX_HTTP_HEADER
            // (100 KiB) and reports a longer line as out of memory, before the header callback
            // (and with it `maximumHeaderSize`) sees the line.
            return make(
                .headersTooLarge,
                "A header line in the response from \(host) is longer than libcurl accepts (100 KiB for one "
                    + "line), so the response was refused before its head was complete. The server sent an "
                    + "abnormally large header, often an oversized cookie or token; fix it on the server. "
                    + "TransferOptions.maximumHeaderSize cannot raise this limit: it is libcurl's own.")
        case CURLE_OUT_OF_MEMORY:
            return make(
                .other,
                "libcurl ran out of memory for \(url) (\(detail)); the response headers may be "
                    + "abnormally large.")
        default:
            return make(.other, "The request to \(url) failed: \(detail).")
        }
    }

    /// The error for a failure that the proxy (`proxy`, named without its password) caused, or
    /// `nil` when the code is not about the proxy.
    static func proxyError(for code: CURLcode, facts: Facts, proxy: String, url: String) -> TransportError? {
        let curlCode = Int(code.rawValue)
        let detail = facts.detail
        func make(_ category: TransportError.Category, _ message: String, reached: Bool = false) -> TransportError {
            TransportError(category, message: message, url: url, curlCode: curlCode, mayHaveReachedServer: reached)
        }
        // 401 too: some proxies (tinyproxy) answer wrong credentials with it.
        if facts.proxyConnectStatus == 407 || facts.proxyConnectStatus == 401 {
            return proxyAuthenticationError(proxy: proxy, url: url, curlCode: curlCode)
        }
        if facts.proxyConnectStatus >= 300 {
            return make(
                .proxyFailure,
                "The proxy \(proxy) refused to open a tunnel to \(hostAndPort(of: url)): it answered CONNECT with "
                    + "\(facts.proxyConnectStatus) (\(detail)). The proxy's rules do not allow this host or port; ask its "
                    + "administrator, or reach the host without it (ProxySetting.direct, or Proxy.bypass).")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY:
            return make(
                .dnsFailure,
                "The host name of the proxy \(proxy) could not be resolved (\(detail)). Check the proxy setting "
                    + "(TransferOptions.proxy, or http_proxy, https_proxy and ALL_PROXY in the environment).")
        case CURLE_COULDNT_CONNECT:
            return make(
                .connectionRefused,
                "Could not connect to the proxy \(proxy) (\(detail)) for \(hostAndPort(of: url)). Check that the "
                    + "proxy runs and listens on that port, or change the proxy setting (TransferOptions.proxy, or "
                    + "http_proxy, https_proxy and ALL_PROXY in the environment).")
        case CURLE_PROXY where facts.proxyFailureCode == Int(CURLPX_RESOLVE_HOST.rawValue):
            return make(
                .dnsFailure,
                "The host name in \(hostAndPort(of: url)) could not be resolved on this machine, which resolves "
                    + "names for the proxy \(proxy) (\(detail)). Check the spelling of the host, or let the proxy "
                    + "resolve it (Proxy.socks5(host:port:resolvesNamesRemotely: true), socks5h).")
        case CURLE_PROXY
        where facts.proxyFailureCode == Int(CURLPX_USER_REJECTED.rawValue)
            || facts.proxyFailureCode == Int(CURLPX_NO_AUTH.rawValue):
            return proxyAuthenticationError(proxy: proxy, url: url, curlCode: curlCode)
        case CURLE_PROXY:
            return make(
                .proxyFailure,
                "The proxy \(proxy) could not relay the connection to \(hostAndPort(of: url)) (\(detail)). A SOCKS "
                    + "proxy refused the host, could not reach it, or refused the credentials.")
        default:
            return nil
        }
    }

    /// The error for a proxy that asks for credentials (`407`) it was not given or refused.
    static func proxyAuthenticationError(proxy: String, url: String, curlCode: Int?) -> TransportError {
        TransportError(
            .proxyAuthenticationRequired,
            message: "The proxy \(proxy) requires credentials for \(hostAndPort(of: url)) and refused the request "
                + "without them or with those given. Set Proxy.credentials, or check the user and password.",
            url: url, curlCode: curlCode, mayHaveReachedServer: false)
    }

    /// The proxy a transfer with `options` to `url` goes through, named for messages (never its
    /// password), or `nil` when it connects directly: the request's own, or the one the
    /// environment names for the URL's scheme.
    static func proxyName(for options: TransferOptions, url: String) -> String? {
        if options.unixSocketPath != nil { return nil }
        switch options.proxy {
        case .direct: return nil
        case .proxy(let proxy): return proxy.description
        case .environment:
            let environment = ProcessInfo.processInfo.environment
            let isHTTPS = url.lowercased().hasPrefix("https:")
            for name in CurlTransfer.environmentProxyNames(https: isHTTPS) {
                if let value = environment[name], !value.isEmpty {
                    return "\(LogRedaction.redactedURL(value)) (from \(name))"
                }
            }
            return nil
        }
    }

    /// A timeout, told apart by the deadline and whether the connection was established.
    private static func timeout(
        wasConnected: Bool, host: String, url: String, options: TransferOptions, elapsed: Duration, curlCode: Int
    ) -> TransportError {
        if let deadline = options.deadline, elapsed >= deadline - .milliseconds(20) {
            return TransportError(
                .deadlineExceeded,
                message: "The request to \(url) did not complete within its deadline of \(deadline). The server is "
                    + "slow or the body is large; raise TransferOptions.deadline or stream the response.",
                url: url, curlCode: curlCode, mayHaveReachedServer: wasConnected)
        }
        if !wasConnected {
            return TransportError(
                .connectTimeout,
                message: "No connection to \(host) could be made within \(options.connectTimeout). Check that the host "
                    + "is reachable (network, firewall, VPN, proxy) or raise TransferOptions.connectTimeout.",
                url: url, curlCode: curlCode, mayHaveReachedServer: false)
        }
        return TransportError(
            .stalledTransfer,
            message: "No data moved to or from \(host) for \(options.stallTimeout), so the transfer was stopped as "
                + "stalled. The server or the network stopped responding; retry later or raise "
                + "TransferOptions.stallTimeout.",
            url: url, curlCode: curlCode)
    }

    /// What to check for a TLS failure.
    private static func tlsHint(_ code: CURLcode) -> String {
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            "the server's certificate is not trusted or does not name this host. If the server uses a private CA, set "
                + "TLSConfiguration.caFile to that CA's PEM file; otherwise fix the server's certificate chain."
        case CURLE_SSL_CACERT_BADFILE:
            "the CA file or directory in TLSConfiguration could not be read; check the path and that it holds PEM "
                + "certificates."
        case CURLE_SSL_CERTPROBLEM:
            "the client certificate or its key could not be used; check TLSConfiguration.clientCertificateFile, "
                + "clientKeyFile and clientKeyPassword."
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            "the server's public key does not match TLSConfiguration.pinnedPublicKey; the server changed its key, or "
                + "someone is intercepting the connection."
        default:
            "the server may not speak TLS on this port, or client and server share no protocol version or cipher."
        }
    }

    /// Whether a transfer that failed with `code` failed for want of a file descriptor.
    ///
    /// libcurl 7.88.1 reports a socket it could not create as `CURLE_COULDNT_CONNECT` with
    /// `CURLINFO_OS_ERRNO` left at 0 (a refused connection records `ECONNREFUSED`); a resolver
    /// thread that could not create its socket pair fails as `CURLE_COULDNT_RESOLVE_HOST`. So an
    /// errno of `EMFILE` or `ENFILE` settles it, any other errno rules it out, and without one the
    /// process tries to create a socket itself, at once, on the thread that saw the failure.
    ///
    /// - Parameters:
    ///   - code: libcurl's result.
    ///   - osErrno: `CURLINFO_OS_ERRNO` of the failed transfer.
    /// - Returns: Whether the process had (and still has) no descriptor to spare.
    static func ranOutOfDescriptors(code: CURLcode, osErrno: Int32) -> Bool {
        guard code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
        else { return false }
        if osErrno == EMFILE || osErrno == ENFILE { return true }
        guard osErrno == 0 else { return false }
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe < 0 else {
            close(probe)
            return false
        }
        return errno == EMFILE || errno == ENFILE
    }

    /// The soft `RLIMIT_NOFILE` of the process, or `nil` when it is unlimited or cannot be read.
    static func descriptorLimit() -> Int? {
        var limit = rlimit()
        // RLIM_INFINITY is all bits set; Swift does not import the macro.
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Whether `code` is one of those plain HTTP sent to a TLS port fails with.
    static func suspectsPlainHTTPToTLS(_ code: CURLcode) -> Bool {
        code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING
            || code == CURLE_UNSUPPORTED_PROTOCOL
    }

    /// Whether a failure looks like plain HTTP sent to a TLS port: an `http` URL whose new
    /// connection ended, or answered something that is not HTTP, before a single byte of a
    /// response head or body arrived.
    ///
    /// libcurl 7.88.1 cannot tell more apart. A TLS server given plain HTTP either answers a
    /// TLS alert (`CURLE_UNSUPPORTED_PROTOCOL`, "Received HTTP/0.9 when not allowed"), closes
    /// (`CURLE_GOT_NOTHING`), or closes with the request unread, which resets the connection
    /// (`CURLE_RECV_ERROR`); nginx answers an HTTP `400` of its own, which is no failure. A
    /// reused connection has already spoken HTTP, so it is never a suspect.
    static func looksLikePlainHTTPSentToTLS(handle: CurlEasyHandle, url: String) -> Bool {
        guard let parts = try? RequestValidation.parseURL(url), parts.scheme == "http" else { return false }
        var connects = 0
        var headerBytes = 0
        var bodyBytes: curl_off_t = 0
        _ = parley_easy_getinfo_long(handle.pointer, CURLINFO_NUM_CONNECTS, &connects)
        _ = parley_easy_getinfo_long(handle.pointer, CURLINFO_HEADER_SIZE, &headerBytes)
        _ = parley_easy_getinfo_off_t(handle.pointer, CURLINFO_SIZE_DOWNLOAD_T, &bodyBytes)
        return connects > 0 && headerBytes == 0 && bodyBytes == 0
    }

    /// `host:port` of a URL, for messages.
    static func hostAndPort(of url: String) -> String {
        guard let parts = try? RequestValidation.parseURL(url) else { return url }
        if parts.authority.contains(":") && !parts.authority.hasSuffix("]") { return parts.authority }
        return parts.authority + (parts.scheme == "https" ? ":443" : ":80")
    }
}
