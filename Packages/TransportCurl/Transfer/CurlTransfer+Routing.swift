import CCurl
import Foundation
import Transport

// Where a hop connects (a proxy, a Unix domain socket, or the URL's host) and the credentials
// libcurl presents. Loop thread only. Handles are reused without `curl_easy_reset`, so every
// option here is set on every use, to the request's value or back to libcurl's default.
extension CurlTransfer {
    /// Sets the proxy, the Unix domain socket and the credentials of the current hop.
    ///
    /// A request that uses none of them (the environment's proxy, TCP, no credentials) on a
    /// handle that has none set costs nothing: about a dozen `curl_easy_setopt` calls, 2 % of the
    /// engine's instructions per request, are skipped.
    func configureRouting(_ handle: CurlEasyHandle) {
        isAuthChallengeHop = false
        authChallengesAnswered = 0
        let options = request.options
        let isDefault = options.proxy == .environment && options.unixSocketPath == nil && options.credentials == nil
        if isDefault && !handle.hasRouting { return }
        handle.hasRouting = !isDefault
        let easy = handle.pointer
        if let path = options.unixSocketPath {
            _ = parley_easy_setopt_string(easy, CURLOPT_UNIX_SOCKET_PATH, path)
        } else {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_UNIX_SOCKET_PATH, nil)
        }
        configureProxy(easy, options.unixSocketPath == nil ? options.proxy : .direct)
        if let credentials = options.credentials {
            _ = parley_easy_setopt_string(easy, CURLOPT_USERNAME, credentials.user)
            _ = parley_easy_setopt_string(easy, CURLOPT_PASSWORD, credentials.password)
            _ = parley_easy_setopt_long(easy, CURLOPT_HTTPAUTH, Self.authMask(credentials.scheme))
        } else {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_USERNAME, nil)
            _ = parley_easy_setopt_pointer(easy, CURLOPT_PASSWORD, nil)
            _ = parley_easy_setopt_long(easy, CURLOPT_HTTPAUTH, parley_auth_basic)
        }
    }

    /// Sets `CURLOPT_PROXY` and the options that go with it.
    private func configureProxy(_ easy: OpaquePointer, _ setting: ProxySetting) {
        var proxyCredentials: HTTPCredentials?
        var tunnels = false
        switch setting {
        case .environment where settings.environmentNamesNoProxy, .direct:
            Self.setNoProxy(easy)
        case .environment:
            // NULL: libcurl reads http_proxy, https_proxy, ALL_PROXY and no_proxy itself.
            _ = parley_easy_setopt_pointer(easy, CURLOPT_PROXY, nil)
            _ = parley_easy_setopt_pointer(easy, CURLOPT_NOPROXY, nil)
        case .proxy(let proxy):
            _ = parley_easy_setopt_string(easy, CURLOPT_PROXY, proxy.url)
            if proxy.bypass.isEmpty {
                // An empty list, not NULL: NULL would let no_proxy from the environment apply.
                _ = parley_easy_setopt_string(easy, CURLOPT_NOPROXY, "")
            } else {
                _ = parley_easy_setopt_string(easy, CURLOPT_NOPROXY, proxy.bypass.joined(separator: ","))
            }
            proxyCredentials = proxy.credentials
            tunnels = proxy.tunnelsEveryRequest
        }
        _ = parley_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, tunnels ? 1 : 0)
        if let proxyCredentials {
            _ = parley_easy_setopt_string(easy, CURLOPT_PROXYUSERNAME, proxyCredentials.user)
            _ = parley_easy_setopt_string(easy, CURLOPT_PROXYPASSWORD, proxyCredentials.password)
            _ = parley_easy_setopt_long(easy, CURLOPT_PROXYAUTH, Self.authMask(proxyCredentials.scheme))
        } else {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_PROXYUSERNAME, nil)
            _ = parley_easy_setopt_pointer(easy, CURLOPT_PROXYPASSWORD, nil)
            _ = parley_easy_setopt_long(easy, CURLOPT_PROXYAUTH, parley_auth_basic)
        }
    }

    /// The environment variables libcurl reads, in its order, for the proxy of an `https` or an
    /// `http` URL when `CURLOPT_PROXY` is not set (`http_proxy` in lower case only).
    static func environmentProxyNames(https: Bool) -> [String] {
        https ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
    }

    /// Sets no proxy at all: for ``/Transport/ProxySetting/direct``, and for the environment's
    /// proxy when the environment names none.
    ///
    /// Both options are set, to empty strings: an empty `CURLOPT_PROXY` turns every proxy off,
    /// and with `CURLOPT_NOPROXY` left unset libcurl would still read `no_proxy` and `NO_PROXY`
    /// on every transfer (with `CURLOPT_PROXY` unset too, five variables, each `getenv` a walk
    /// of the whole environment: about 1,700 instructions of a request). The transport reads
    /// the environment once instead, when it is made; a process that sets a proxy variable
    /// after making its transport makes another transport to use it.
    static func setNoProxy(_ easy: OpaquePointer) {
        _ = parley_easy_setopt_string(easy, CURLOPT_PROXY, "")
        _ = parley_easy_setopt_string(easy, CURLOPT_NOPROXY, "")
    }

    /// libcurl's `CURLAUTH_*` bits for a scheme.
    static func authMask(_ scheme: HTTPCredentials.Scheme) -> Int {
        switch scheme {
        case .basic: parley_auth_basic
        case .digest: parley_auth_digest
        case .any: parley_auth_any
        }
    }

    /// Whether a final head with `status` is a challenge that libcurl answers by itself with a
    /// second request on the same hop: the first `401` (or `407` from a forwarding proxy) when
    /// the credentials' scheme needs one (Digest, or any). Its body is discarded and its head is
    /// not the response; a second challenge is (the credentials were refused).
    func isAnsweredChallenge(status: Int) -> Bool {
        guard authChallengesAnswered == 0 else { return false }
        let credentials: HTTPCredentials?
        switch status {
        case 401: credentials = request.options.credentials
        case 407: credentials = request.options.unixSocketPath == nil ? request.options.proxy.proxy?.credentials : nil
        default: return false
        }
        guard let credentials, credentials.scheme != .basic else { return false }
        return true
    }

    /// Starts a new head after a challenge libcurl answers (see ``isAnsweredChallenge(status:)``),
    /// when libcurl sends the request again.
    func beginAnsweringChallenge() {
        guard isAuthChallengeHop else { return }
        isAuthChallengeHop = false
        authChallengesAnswered += 1
        response.restart()
        body = Data()
        bodyBytes = 0
    }
}
