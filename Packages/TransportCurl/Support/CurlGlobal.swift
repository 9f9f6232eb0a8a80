import CCurl
import Glibc

/// Process-wide libcurl set-up, done once before the first transport starts.
enum CurlGlobal {
    /// `curl_global_init` and `SIGPIPE` ignored, run exactly once (a Swift global is lazily
    /// initialised under `swift_once`, so concurrent first uses are safe).
    ///
    /// `SIGPIPE` is ignored for the whole process because a write to a socket the peer has
    /// closed would otherwise kill it; libcurl also sets `MSG_NOSIGNAL` where it can, but
    /// OpenSSL writes do not.
    static let initialized: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return curl_global_init(parley_global_all) == CURLE_OK
    }()

    /// The libcurl version string, for diagnostics.
    static var version: String {
        guard let text = curl_version() else { return "unknown" }
        return String(cString: text)
    }
}
