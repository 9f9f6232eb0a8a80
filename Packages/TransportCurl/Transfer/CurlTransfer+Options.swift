import CCurl
import Foundation
import HTTPTypes
import Logging
import Transport

// The easy-handle options of a transfer: those the same for every request of the transport,
// set once per handle, and those of each hop, set on every use. Loop thread only.
extension CurlTransfer {
    /// Points libcurl's private pointer and every callback's user data at this transfer.
    func setContext(on handle: CurlEasyHandle) {
        guard let context = retainedSelf?.toOpaque() else { return }
        // The header callback is C (`parley_head_callback`): its data is the handle's head,
        // which calls this transfer when a head ends.
        handle.head.head.pointee.owner = context
        handle.head.head.pointee.on_event = curlHeadEventCallback
        let easy = handle.pointer
        _ = parley_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
    }

    /// Sets every option of the current hop on `handle`, a new one or one an earlier transfer used.
    func configure(_ handle: CurlEasyHandle) throws {
        let url: String
        if let validated = validatedFirstURL {
            // The request is unchanged since the transport validated it.
            validatedFirstURL = nil
            url = validated
        } else {
            url = try RequestValidation.validate(request.head)
        }
        currentURL = url
        let easy = handle.pointer
        let options = request.options

        // Per-hop state. The head is parsed into the handle's own buffers, kept between its
        // transfers.
        response = handle.head
        response.restart()
        response.head.pointee.limit = Int64(options.maximumHeaderSize)
        isRedirectHop = false
        body = Data()
        bodyBytes = 0
        abortReason = nil
        isReceivePaused = false
        isSendPaused = false
        stallWatch = StallWatch()

        if !handle.isPrepared {
            prepareConstantOptions(handle)
            handle.isPrepared = true
        }
        handle.errorBuffer.pointee = 0
        handle.refusedAtDescriptorLimit = nil
        handle.hopsConfigured += 1

        // Every option below varies per request. Handles are reused without `curl_easy_reset`
        // (but see `CurlEasyHandle.resetIfResent()`), so nothing of a previous request may
        // linger: each is set unless the handle holds the same value already
        // (`CurlEasyHandle.lastSet`, forgotten when the handle is reset).
        if handle.lastSet.url != url {
            _ = parley_easy_setopt_string(easy, CURLOPT_URL, url)
            handle.lastSet.url = url
        }

        // Timeouts.
        let connectTimeout = Self.milliseconds(options.connectTimeout)
        if handle.lastSet.connectTimeout != connectTimeout {
            _ = parley_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout)
            handle.lastSet.connectTimeout = connectTimeout
        }
        // The stall timeout is enforced by the loop (`checkStall`), not CURLOPT_LOW_SPEED_*:
        // libcurl 7.88.1 counts a transfer paused for backpressure as slow and kills it.
        var timeout = 0
        if let deadline = options.deadline {
            let remaining = deadline - elapsed
            guard remaining > .zero else { throw deadlineError(deadline) }
            timeout = max(1, Self.milliseconds(remaining))
        }
        if handle.lastSet.timeout != timeout {
            _ = parley_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeout)
            handle.lastSet.timeout = timeout
        }

        // Wait for a connection that can multiplex rather than open another (HTTPS, HTTP/2).
        // The URL is validated: its scheme is `http` or `https`, in lowercase.
        let isHTTPS = url.utf8.starts(with: Self.httpsPrefix)
        let pipeWait = configuration.allowsHTTP2 && isHTTPS ? 1 : 0
        if handle.lastSet.pipeWait != pipeWait {
            _ = parley_easy_setopt_long(easy, CURLOPT_PIPEWAIT, pipeWait)
            handle.lastSet.pipeWait = pipeWait
        }
        // libcurl allocates the receive buffer when the transfer starts and frees it when it
        // ends, so its size may change between the transfers of a handle: a collected response
        // takes the smaller one (it is held by every request waiting in flight), and the
        // smallest when its loop was crowded as it started.
        let bufferSize = Self.receiveBufferSize(
            collects: isCollecting, crowded: startedCrowded, configuration: configuration)
        if handle.lastSet.bufferSize != bufferSize {
            _ = parley_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, bufferSize)
            handle.lastSet.bufferSize = bufferSize
        }
        if handle.lastSet.acceptsEncodings != options.decodesContent {
            if options.decodesContent {
                _ = parley_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
            } else {
                _ = parley_easy_setopt_pointer(easy, CURLOPT_ACCEPT_ENCODING, nil)
            }
            handle.lastSet.acceptsEncodings = options.decodesContent
        }
        if configuration.tls.disablesVerification && isHTTPS {
            let warning =
                "TLS verification is disabled for \(LogRedaction.redactedURL(currentURL)): anyone on the network path can read "
                + "and alter this traffic. Turn off TLSConfiguration.disablesVerification outside tests."
            configuration.securityLogger.warning("\(warning)")
        }

        try configureMethodAndBody(handle)
        configureHeaders(handle)
        configureRouting(handle)

        if options.eventHandler != nil {
            progress = ProgressThrottle()
            if handle.lastSet.noProgress != false {
                _ = parley_easy_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, curlProgressCallback)
                _ = parley_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
                handle.lastSet.noProgress = false
            }
        } else if handle.lastSet.noProgress != true {
            _ = parley_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 1)
            handle.lastSet.noProgress = true
        }
        if retainedSelf != nil { setContext(on: handle) }
    }

    /// Sets the options that are the same for every request of this transport, once per handle.
    private func prepareConstantOptions(_ handle: CurlEasyHandle) {
        let easy = handle.pointer
        _ = parley_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer)
        _ = parley_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = parley_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        // Redirects are followed by the engine itself (see `followRedirect`), so that the
        // limit, the scheme rule and credential stripping are ours and never restored.
        _ = parley_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = parley_easy_setopt_long(
            easy, CURLOPT_HTTP_VERSION,
            configuration.allowsHTTP2 ? parley_http_version_2tls : parley_http_version_1_1)
        _ = parley_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        // A proxy's answer to CONNECT is not the response: keep it from the header callback.
        _ = parley_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // The routing a request without a proxy, socket or credentials of its own finds on the
        // handle (`configureRouting` leaves it as it is).
        if settings.environmentNamesNoProxy { Self.setNoProxy(easy) }
        configureTLS(easy)
        _ = parley_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        parley_easy_set_head(easy, handle.head.head)
        _ = parley_easy_setopt_read_callback(easy, CURLOPT_READFUNCTION, curlReadCallback)
        _ = parley_easy_setopt_seek_callback(easy, CURLOPT_SEEKFUNCTION, curlSeekCallback)
        _ = parley_easy_setopt_prereq_callback(easy, CURLOPT_PREREQFUNCTION, curlPrereqCallback)
        // The engine opens libcurl's sockets, to keep the descriptors of `DescriptorReserve`.
        _ = parley_easy_setopt_opensocket_callback(easy, CURLOPT_OPENSOCKETFUNCTION, curlOpenSocketCallback)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(handle).toOpaque())
    }

    /// Sets the TLS options of ``CurlTransport/Configuration/tls``.
    private func configureTLS(_ easy: OpaquePointer) {
        let tls = configuration.tls
        if let caFile = tls.caFile { _ = parley_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        if let caDirectory = tls.caDirectory { _ = parley_easy_setopt_string(easy, CURLOPT_CAPATH, caDirectory) }
        if let certificate = tls.clientCertificateFile {
            _ = parley_easy_setopt_string(easy, CURLOPT_SSLCERT, certificate)
            if let key = tls.clientKeyFile { _ = parley_easy_setopt_string(easy, CURLOPT_SSLKEY, key) }
            if let password = tls.clientKeyPassword {
                _ = parley_easy_setopt_string(easy, CURLOPT_KEYPASSWD, password)
            }
        }
        if let pin = tls.pinnedPublicKey { _ = parley_easy_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pin) }
        let verifies = !tls.disablesVerification
        _ = parley_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, verifies ? 1 : 0)
        _ = parley_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, verifies ? 2 : 0)
    }

    /// Sets the method and, for a request that sends one, opens the body as an ``UploadSource``.
    private func configureMethodAndBody(_ handle: CurlEasyHandle) throws {
        let easy = handle.pointer
        let method = request.head.method
        upload?.close()
        upload = nil
        let wasPlainGet = handle.lastSet.isPlainGet
        handle.lastSet.isPlainGet = false
        if method == .head {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
            _ = parley_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            return
        }
        let sendsBody = request.body != nil || method == .post || method == .put || method == .patch
        guard sendsBody else {
            if method == .get {
                handle.lastSet.isPlainGet = true
                if wasPlainGet { return }
                // CURLOPT_HTTPGET also turns CURLOPT_NOBODY and CURLOPT_UPLOAD off.
                _ = parley_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
                _ = parley_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
            } else {
                _ = parley_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
                _ = parley_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method.rawValue)
            }
            return
        }
        let gzip = request.options.compressesRequestBody && request.body != nil
        if gzip, let encoding = request.head.headerFields[.contentEncoding] {
            throw TransportError(
                .invalidHeader,
                message: "The request to \(currentURL) has Content-Encoding: \(encoding) and "
                    + "TransferOptions.compressesRequestBody asks the engine to gzip the body, which would encode it "
                    + "twice. Remove the header, or turn the option off and send a body you encoded yourself.",
                url: currentURL, mayHaveReachedServer: false)
        }
        let source = try UploadSource(
            body: request.body ?? .bytes(Data()),
            gzip: gzip,
            highWaterMark: configuration.streamBufferSize,
            resumeSending: { [weak self] in
                guard let self else { return }
                self.commands.post(.resumeSending(self))
            }
        )
        upload = source
        // CURLOPT_UPLOAD streams the body through the read callback for any method;
        // CURLOPT_CUSTOMREQUEST puts the real method on the request line.
        _ = parley_easy_setopt_long(easy, CURLOPT_NOBODY, 0)
        _ = parley_easy_setopt_long(easy, CURLOPT_UPLOAD, 1)
        _ = parley_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method.rawValue)
        _ = parley_easy_setopt_off_t(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(source.length ?? -1))
    }

    /// Builds the header list libcurl sends, with the engine's own additions.
    ///
    /// A transfer that decodes content sends libcurl's own `Accept-Encoding`
    /// (``CurlContentEncodings/acceptEncodingLine``) in this list, unless the request has one:
    /// libcurl then does not format the field itself for every request.
    ///
    /// A request with no header fields and no body sends the engine's `User-Agent` (and that
    /// `Accept-Encoding`) alone: one of the handle's own lists
    /// (``CurlEasyHandle/defaultHeaderList(decodingContent:userAgent:)``), made once and left set
    /// between requests, so that such a request builds, allocates and frees nothing.
    private func configureHeaders(_ handle: CurlEasyHandle) {
        freeHeaderList()
        let decodes = request.options.decodesContent
        let jarCookies = configuration.cookieJar.flatMap(jarCookieField)
        if request.head.headerFields.isEmpty && upload == nil && jarCookies == nil {
            let defaults = handle.defaultHeaderList(decodingContent: decodes, userAgent: configuration.userAgent)
            if defaults != nil && handle.lastSet.defaultHeaders == defaults { return }
            _ = parley_easy_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, defaults)
            handle.lastSet.defaultHeaders = defaults
            return
        }
        handle.lastSet.defaultHeaders = nil
        var list: UnsafeMutablePointer<curl_slist>?
        func add(_ line: String) {
            list = curl_slist_append(list, line)
        }
        var hasUserAgent = false
        var hasAcceptEncoding = false
        for field in request.head.headerFields {
            if field.name == .userAgent { hasUserAgent = true }
            if field.name == .acceptEncoding { hasAcceptEncoding = true }
            // One `Cookie` field (RFC 6265 §5.4): the caller's, then the jar's, added below.
            if jarCookies != nil && field.name == .cookie { continue }
            // libcurl's syntax for a header with an empty value is `Name;`.
            add(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if let jarCookies { add("Cookie: \(jarCookies)") }
        if !hasUserAgent { add("User-Agent: \(configuration.userAgent)") }
        if decodes && !hasAcceptEncoding { add(CurlContentEncodings.acceptEncodingLine) }
        // An empty `Expect:` stops libcurl from waiting up to a second for `100 Continue`.
        if upload != nil && request.head.headerFields[.expect] == nil { add("Expect:") }
        if upload?.isGzipped == true { add("Content-Encoding: gzip") }
        headerList = list
        _ = parley_easy_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, list)
    }

    /// The `Cookie` field of the current hop with the jar's cookies: the request's own
    /// `Cookie` value first, then the jar's cookies whose names it does not set; `nil` when the
    /// jar has none for the hop's URL.
    private func jarCookieField(_ jar: CookieJar) -> String? {
        guard
            let url = CookieURL(scheme: request.head.scheme, authority: request.head.authority, path: request.head.path)
        else { return nil }
        let callerValue = request.head.headerFields[.cookie]
        guard let jarValue = jar.fieldValue(for: url, excluding: callerValue) else { return nil }
        guard let callerValue, !callerValue.isEmpty else { return jarValue }
        return "\(callerValue); \(jarValue)"
    }

    /// Stores the `Set-Cookie` fields of the head just completed in the jar, for the hop's URL;
    /// a field the jar refuses is logged at debug level, never an error.
    func storeCookies(in jar: CookieJar) {
        guard
            let url = CookieURL(scheme: request.head.scheme, authority: request.head.authority, path: request.head.path)
        else { return }
        let lines = response.makeHead().headerFields[values: .setCookie]
        guard !lines.isEmpty else { return }
        for rejection in jar.store(setCookie: lines, from: url) {
            configuration.logger.debug("\(rejection)")
        }
    }

    /// Frees the header list of the last hop.
    func freeHeaderList() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    /// The error for a deadline that passed before a hop could start.
    private func deadlineError(_ deadline: Duration) -> TransportError {
        TransportError(
            .deadlineExceeded,
            message: "The request to \(currentURL) did not complete within its deadline of \(deadline).",
            url: currentURL)
    }

    /// The start of a URL whose scheme is `https`.
    private static let httpsPrefix = Array("https:".utf8)

    /// Whether the body is collected whole (``Mode/collect``) rather than streamed.
    var isCollecting: Bool {
        if case .collect = mode { return true }
        return false
    }

    /// libcurl's receive buffer for a transfer (`CURLOPT_BUFFERSIZE`): the configuration's
    /// ``CurlTransport/Configuration/collectedReceiveBufferSize`` for a body collected whole,
    /// at most ``crowdedCollectedReceiveBufferSize`` when the transfer started on a crowded loop
    /// (`crowded`, ``CurlEventLoop/crowdedThreshold``), and its
    /// ``CurlTransport/Configuration/receiveBufferSize`` for a streamed one, within what libcurl
    /// accepts (1 KiB to 10 MiB).
    static func receiveBufferSize(
        collects: Bool, crowded: Bool = false, configuration: CurlTransport.Configuration
    ) -> Int {
        var bytes = collects ? configuration.collectedReceiveBufferSize : configuration.receiveBufferSize
        if collects && crowded { bytes = min(bytes, crowdedCollectedReceiveBufferSize) }
        return min(max(1024, bytes), 10 * 1024 * 1024)
    }

    /// The most a collected transfer's receive buffer takes when it starts on a crowded loop:
    /// 4 KiB, a page.
    ///
    /// libcurl 7.88.1 allocates the buffer as a transfer starts to connect and keeps it until the
    /// transfer ends, so every request waiting for its answer holds one, and among thousands
    /// waiting it is the largest part of each (docs/BENCHMARKS.md, "What a waiting request
    /// holds": with 10,000 in flight, 23.4 KiB per request in flight with 4 KiB buffers against
    /// 28.7 with 16 KiB). A loop that crowded spends little of its time reading any one
    /// transfer, so the smaller buffer costs what it costs a large body read alone (a 1 MiB
    /// body collected one at a time: about a quarter more CPU than with 16 KiB) only to the few
    /// large bodies among the many that wait.
    static let crowdedCollectedReceiveBufferSize = 4 * 1024

    /// Whole milliseconds of `duration`, rounded down, for libcurl's `_MS` options.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
