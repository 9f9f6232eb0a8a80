import CCurl
import Transport

/// One libcurl easy handle and its error buffer, reused across transfers by the loop.
///
/// Touched only on the loop thread.
final class CurlEasyHandle {
    /// The `CURL *`.
    let pointer: OpaquePointer
    /// Whether the options that are the same for every request of the transport are set.
    var isPrepared = false
    /// Whether a proxy, a Unix socket or credentials may be set on the handle, so that a request
    /// with none must set libcurl's defaults back (`CurlTransfer.configureRouting`).
    var hasRouting = false
    /// The head of each response, parsed by the header callback into buffers kept for the
    /// handle's next transfers (`CURLOPT_HEADERDATA`).
    let head = ResponseHeadParser()
    /// libcurl writes a detailed message here when a transfer fails (`CURLOPT_ERRORBUFFER`).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// `RLIMIT_NOFILE` when the engine last refused a socket of this handle's transfer because
    /// the system numbered it in the ``DescriptorReserve``; `nil` otherwise. Cleared for each hop.
    var refusedAtDescriptorLimit: Int?
    /// The per-request options last set on the handle, so that a request that needs the same
    /// values skips setting them again (`CurlTransfer.configure`). Forgotten with the handle's
    /// options when it is reset.
    var lastSet = LastSetOptions()
    /// The header list of a request with no header fields of its own that decodes content:
    /// the engine's `User-Agent` and libcurl's `Accept-Encoding`
    /// (``CurlContentEncodings/acceptEncodingLine``). Made once for the handle, freed with it.
    private var decodingHeaderList: UnsafeMutablePointer<curl_slist>?
    /// The header list of a request with no header fields of its own that does not decode
    /// content: the engine's `User-Agent` alone. Made once for the handle, freed with it.
    private var plainHeaderList: UnsafeMutablePointer<curl_slist>?

    /// Per-request options as last set on a handle; `nil` or `false` where unknown.
    struct LastSetOptions {
        /// `CURLOPT_URL`.
        var url: String?
        /// `CURLOPT_CONNECTTIMEOUT_MS`.
        var connectTimeout: Int?
        /// `CURLOPT_TIMEOUT_MS`.
        var timeout: Int?
        /// `CURLOPT_PIPEWAIT`.
        var pipeWait: Int?
        /// Whether `CURLOPT_ACCEPT_ENCODING` is `""` (every encoding libcurl decodes).
        var acceptsEncodings: Bool?
        /// Whether the method options are a plain GET's (`CURLOPT_HTTPGET`, no custom request).
        var isPlainGet = false
        /// `CURLOPT_HTTPHEADER` when it is one of the handle's own lists
        /// (``CurlEasyHandle/defaultHeaderList(decodingContent:userAgent:)``).
        var defaultHeaders: UnsafeMutablePointer<curl_slist>?
        /// `CURLOPT_NOPROGRESS`.
        var noProgress: Bool?
        /// `CURLOPT_BUFFERSIZE`.
        var bufferSize: Int?
    }

    /// Creates a handle, or `nil` when libcurl cannot.
    init?() {
        guard let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        LiveCounts.easyHandles.increment()
    }

    /// The message libcurl left in the error buffer, or `nil` when empty.
    var errorMessage: String? {
        errorBuffer.pointee == 0 ? nil : String(cString: errorBuffer)
    }

    /// The header list of a request with no header fields of its own, made the first time it
    /// is needed: the engine's `User-Agent`, and libcurl's `Accept-Encoding` when the request
    /// decodes content. `nil` when libcurl could not allocate it.
    func defaultHeaderList(decodingContent: Bool, userAgent: String) -> UnsafeMutablePointer<curl_slist>? {
        if decodingContent {
            if decodingHeaderList == nil {
                decodingHeaderList = Self.makeList("User-Agent: \(userAgent)", CurlContentEncodings.acceptEncodingLine)
            }
            return decodingHeaderList
        }
        if plainHeaderList == nil { plainHeaderList = Self.makeList("User-Agent: \(userAgent)") }
        return plainHeaderList
    }

    /// A header list of `lines`, or `nil` (nothing left allocated) when libcurl cannot make it.
    private static func makeList(_ lines: String...) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                return nil
            }
            list = longer
        }
        return list
    }

    /// The hops (requests of the engine, redirects included) configured on the handle since it
    /// was last reset.
    var hopsConfigured = 0
    /// The requests libcurl was about to send since the handle was last reset, as
    /// `CURLOPT_PREREQFUNCTION` counts them: one per hop, and one more each time libcurl sent a
    /// request again by itself.
    var requestsSent = 0

    /// Returns the handle to libcurl's defaults when libcurl sent a request of it again by
    /// itself, to be prepared again for its next transfer.
    ///
    /// libcurl 7.88.1 counts the requests it sends again by itself (a reused connection that
    /// closed before a byte of answer) per easy handle, and clears that count only in
    /// `curl_easy_reset` or when it gives up; curl 8.17 counts per transfer. Without a reset, a
    /// handle that had sent five requests again over its life failed the next such request at
    /// once with "Connection died, tried 5 times before giving up" instead of sending it again.
    /// A reset costs about eight allocations, so it is made only when the count can have moved:
    /// when more requests were sent than hops were configured.
    func resetIfResent() {
        if requestsSent > hopsConfigured {
            curl_easy_reset(pointer)
            errorBuffer.pointee = 0
            isPrepared = false
            hasRouting = false
            lastSet = LastSetOptions()
        }
        hopsConfigured = 0
        requestsSent = 0
    }

    /// Frees the handle; it must not be used afterwards.
    func cleanup() {
        curl_easy_cleanup(pointer)
        if let decodingHeaderList { curl_slist_free_all(decodingHeaderList) }
        if let plainHeaderList { curl_slist_free_all(plainHeaderList) }
        errorBuffer.deallocate()
        LiveCounts.easyHandles.decrement()
    }
}
