import CCurl

/// Process-wide libcurl set-up, done once before the first transport starts.
///
/// It changes no signal disposition. `SIGPIPE` keeps whatever the program chose (by default,
/// to end the process when the reader of a pipe goes away), because the engine's writes never
/// raise it: every easy handle sets `CURLOPT_NOSIGNAL`, libcurl 7.88.1 sends on its sockets with
/// `MSG_NOSIGNAL`, and its OpenSSL backend writes TLS records through a `BIO` of libcurl's own
/// that sends the same way, so a peer that closes mid-upload is an `EPIPE` that becomes a
/// ``TransportError``, never a signal. `SignalPolicyTests` proves it over plain HTTP and TLS.
enum CurlGlobal {
    /// `curl_global_init`, run exactly once (a Swift global is lazily initialised under
    /// `swift_once`, so concurrent first uses are safe).
    static let initialized: Bool = curl_global_init(parley_global_all) == CURLE_OK

    /// The libcurl version string, for diagnostics.
    static var version: String {
        guard let text = curl_version() else { return "unknown" }
        return String(cString: text)
    }
}
