import CCurl
import Transport

/// Reads a finished transfer's timings and counters from libcurl.
enum CurlMetrics {
    /// The metrics of the hop that just finished on `easy`.
    static func read(from easy: OpaquePointer, redirectCount: Int) -> TransferMetrics {
        func microseconds(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = parley_easy_getinfo_off_t(easy, info, &value)
            return .microseconds(value)
        }
        func count(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            _ = parley_easy_getinfo_off_t(easy, info, &value)
            return Int64(value)
        }
        var connects = 0
        _ = parley_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        var version = 0
        _ = parley_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        return TransferMetrics(
            nameLookup: microseconds(CURLINFO_NAMELOOKUP_TIME_T),
            connect: microseconds(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: microseconds(CURLINFO_APPCONNECT_TIME_T),
            firstByte: microseconds(CURLINFO_STARTTRANSFER_TIME_T),
            total: microseconds(CURLINFO_TOTAL_TIME_T),
            bytesSent: count(CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: count(CURLINFO_SIZE_DOWNLOAD_T),
            reusedConnection: connects == 0,
            httpVersion: httpVersionName(version),
            redirectCount: redirectCount)
    }

    private static func httpVersionName(_ version: Int) -> String {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: "unknown"
        }
    }
}
