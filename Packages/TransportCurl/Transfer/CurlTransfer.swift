import CCurl
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Transport

/// One request's life on the loop: its easy-handle options, its C callbacks' state, its
/// redirects, and the continuation that hands the result back to Swift.
///
/// Ownership: the loop keeps a transfer alive from `start` to `finish` twice over, in its
/// `active` table and as the `Unmanaged` reference retained into `CURLOPT_PRIVATE` (and the
/// callbacks' user data) by ``attach(to:loop:)`` and released exactly once by ``detach()``.
final class CurlTransfer: @unchecked Sendable {
    // Safety of @unchecked Sendable: a transfer is created on the caller's task, which sets
    // `dataContinuation`/`headContinuation` and then hands the transfer to the loop through
    // the loop's locked command queue (a happens-before edge). From then on every stored
    // `var` is read and written only on the loop thread. Other threads only enqueue commands
    // through the immutable `loop` reference (whose queue is locked) and touch
    // `cancelRequested`, an `Atomic`.

    /// How the body is handed over.
    enum Mode {
        /// Gather the body, resume once with a ``DataResponse``.
        case collect
        /// Resume with the head, then stream the body through the buffer.
        case stream(ResponseStreamBuffer)
    }

    /// What the loop does with a transfer libcurl reports as done.
    enum Step {
        /// Follow a redirect on the same handle.
        case redirect(CurlEasyHandle)
        /// The transfer is over.
        case finished(Result<Void, TransportError>)
    }

    // Set before start, read on the loop.
    var dataContinuation: CheckedContinuation<CollectedTransfer, any Error>?
    var headContinuation: CheckedContinuation<StreamedTransfer, any Error>?
    let cancelRequested = Atomic(false)

    // Loop-thread state.
    private(set) var request: TransportRequest
    let configuration: CurlTransport.Configuration
    var mode: Mode = .collect
    /// The loop that runs this transfer; any thread may enqueue commands on it.
    private let loop: CurlEventLoop
    private var handle: CurlEasyHandle?
    private var retainedSelf: Unmanaged<CurlTransfer>?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private(set) var currentURL: String
    /// The URL the caller asked for (immutable, so any thread may read it).
    let initialURL: String
    private var upload: UploadSource?
    /// The first hop's URL, validated by the transport before the transfer was created.
    private var validatedFirstURL: String?
    private var firstStart: ContinuousClock.Instant?
    private var redirectCount = 0

    // Per hop.
    private var response = ResponseHeadParser()
    private var isRedirectHop = false
    private var body = Data()
    private var bodyBytes: Int64 = 0
    private var abortReason: TransportError?
    private var headDelivered = false
    private var isReceivePaused = false
    private var isSendPaused = false
    private var metrics: TransferMetrics?
    private var progress = ProgressThrottle()
    private var bytesMoved: Int64 = 0
    private var stallWatch = StallWatch()

    /// Whether the transfer is on the multi handle now.
    var isAttached: Bool { handle != nil }

    /// Creates a transfer for a request.
    ///
    /// - Parameter validatedURL: What `RequestValidation.validate(request.head)` returned, when
    ///   the caller has checked the request already; the first hop then skips the check.
    init(
        request: TransportRequest, configuration: CurlTransport.Configuration, loop: CurlEventLoop,
        validatedURL: String? = nil
    ) {
        self.request = request
        self.loop = loop
        self.configuration = configuration
        let url = request.url
        self.currentURL = url
        self.initialURL = url
        self.validatedFirstURL = validatedURL
    }

    // MARK: - Any thread

    /// Stops the transfer within milliseconds; its continuation fails with `.cancelled`.
    func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        let error = TransportError(
            .cancelled, message: "The request was cancelled before it completed.", url: initialURL)
        loop.enqueue(.cancel(self, error))
    }

    // MARK: - Loop thread: set-up

    /// Takes the handle, retains the context for libcurl and configures the first hop.
    func attach(to handle: CurlEasyHandle) throws {
        if cancelRequested.load(ordering: .acquiring) {
            throw TransportError(
                .cancelled, message: "The request was cancelled before it started.",
                url: currentURL, mayHaveReachedServer: false)
        }
        self.firstStart = .now
        try configure(handle)
        self.handle = handle
        self.retainedSelf = Unmanaged.passRetained(self)
        setContext(on: handle)
        if configuration.logger.logLevel <= .debug {
            configuration.logger.debug("→ \(request.head.method) \(LogRedaction.redactedURL(currentURL))")
            configuration.logger.trace("request headers:\n\(request.head.headerFields.redactedForLogging)")
        }
    }

    /// Gives the handle back and releases the context retained for libcurl; safe to call twice.
    func detach() -> CurlEasyHandle? {
        guard let handle else { return nil }
        self.handle = nil
        retainedSelf?.release()
        retainedSelf = nil
        // The handle is kept for reuse: it must not point at the list freed here.
        _ = parley_easy_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, nil)
        freeHeaderList()
        upload?.close()
        upload = nil
        return handle
    }

    private func setContext(on handle: CurlEasyHandle) {
        guard let context = retainedSelf?.toOpaque() else { return }
        let easy = handle.pointer
        _ = parley_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context)
        _ = parley_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context)
    }

    /// Sets every option of the current hop on `handle` (fresh from `curl_easy_reset`).
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

        // Per-hop state.
        response = ResponseHeadParser()
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

        // Every option below varies per request and is set on every use: handles are reused
        // without `curl_easy_reset`, so nothing of a previous request may linger.
        _ = parley_easy_setopt_string(easy, CURLOPT_URL, url)

        // Timeouts.
        _ = parley_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout))
        // The stall timeout is enforced by the loop (`checkStall`), not CURLOPT_LOW_SPEED_*:
        // libcurl 7.88.1 counts a transfer paused for backpressure as slow and kills it.
        var timeout = 0
        if let deadline = options.deadline {
            let remaining = deadline - (firstStart.map { ContinuousClock.now - $0 } ?? .zero)
            guard remaining > .zero else { throw deadlineError(deadline) }
            timeout = max(1, Self.milliseconds(remaining))
        }
        _ = parley_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeout)

        // Wait for a connection that can multiplex rather than open another (HTTPS, HTTP/2).
        let isHTTPS = RequestValidation.isHTTPS(request.head.scheme)
        _ = parley_easy_setopt_long(easy, CURLOPT_PIPEWAIT, configuration.allowsHTTP2 && isHTTPS ? 1 : 0)
        if options.decodesContent {
            _ = parley_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        } else {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_ACCEPT_ENCODING, nil)
        }
        if configuration.tls.disablesVerification && isHTTPS {
            let warning =
                "TLS verification is disabled for \(currentURL): anyone on the network path can read "
                + "and alter this traffic. Turn off TLSConfiguration.disablesVerification outside tests."
            configuration.securityLogger.warning("\(warning)")
        }

        try configureMethodAndBody(easy)
        configureHeaders(easy)

        if options.eventHandler != nil {
            progress = ProgressThrottle()
            _ = parley_easy_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, curlProgressCallback)
            _ = parley_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
        } else {
            _ = parley_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 1)
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
        _ = parley_easy_setopt_long(
            easy, CURLOPT_BUFFERSIZE, min(max(1024, configuration.receiveBufferSize), 10 * 1024 * 1024))
        _ = parley_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        configureTLS(easy)
        _ = parley_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        _ = parley_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        _ = parley_easy_setopt_read_callback(easy, CURLOPT_READFUNCTION, curlReadCallback)
        _ = parley_easy_setopt_seek_callback(easy, CURLOPT_SEEKFUNCTION, curlSeekCallback)
    }

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

    private func configureMethodAndBody(_ easy: OpaquePointer) throws {
        let method = request.head.method
        upload?.close()
        upload = nil
        if method == .head {
            _ = parley_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
            _ = parley_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            return
        }
        let sendsBody = request.body != nil || method == .post || method == .put || method == .patch
        guard sendsBody else {
            // CURLOPT_HTTPGET also turns CURLOPT_NOBODY and CURLOPT_UPLOAD off.
            _ = parley_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            if method == .get {
                _ = parley_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
            } else {
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
                self.loop.enqueue(.resumeSending(self))
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

    private func configureHeaders(_ easy: OpaquePointer) {
        freeHeaderList()
        var list: UnsafeMutablePointer<curl_slist>?
        func add(_ line: String) {
            list = curl_slist_append(list, line)
        }
        var hasUserAgent = false
        for field in request.head.headerFields {
            if field.name == .userAgent { hasUserAgent = true }
            // libcurl's syntax for a header with an empty value is `Name;`.
            add(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if !hasUserAgent { add("User-Agent: \(configuration.userAgent)") }
        // An empty `Expect:` stops libcurl from waiting up to a second for `100 Continue`.
        if upload != nil && request.head.headerFields[.expect] == nil { add("Expect:") }
        if upload?.isGzipped == true { add("Content-Encoding: gzip") }
        headerList = list
        _ = parley_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }

    private func freeHeaderList() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    // MARK: - Loop thread: callbacks

    /// One header line (status line, field, or the blank line that ends a head).
    func onHeader(_ line: UnsafeRawBufferPointer) -> Int {
        bytesMoved &+= Int64(line.count)
        switch response.consume(line, limit: request.options.maximumHeaderSize) {
        case .continue:
            return line.count
        case .tooLarge:
            abortReason = TransportError(
                .headersTooLarge,
                message: "The response headers from \(currentURL) exceed the limit of "
                    + "\(request.options.maximumHeaderSize) bytes; raise TransferOptions.maximumHeaderSize if the server "
                    + "is trusted.",
                url: currentURL)
            return 0
        case .invalid(let problem):
            abortReason = TransportError(
                .invalidResponse, message: "The response from \(currentURL) has a malformed head: \(problem).",
                url: currentURL)
            return 0
        case .headComplete:
            return headComplete() ? line.count : 0
        }
    }

    /// Decides what the finished head means; returns `false` to abort the transfer.
    private func headComplete() -> Bool {
        let status = response.status
        if Self.redirectStatuses.contains(status), request.options.redirects.limit > 0,
            response.location != nil
        {
            isRedirectHop = true
            return true
        }
        if case .collect = mode, !response.hasContentEncoding, let length = response.contentLength,
            length > request.options.maximumBodySize
        {
            abortReason = tooLargeError()
            return false
        }
        if case .stream = mode { loop.scheduleDelivery(self) }
        return true
    }

    /// Body bytes, already decoded when the response was compressed.
    func onWrite(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytesMoved &+= Int64(bytes.count)
        if isRedirectHop { return bytes.count }
        switch mode {
        case .collect:
            if bodyBytes + Int64(bytes.count) > request.options.maximumBodySize {
                abortReason = tooLargeError()
                return 0
            }
            body.append(contentsOf: bytes)
            bodyBytes += Int64(bytes.count)
            return bytes.count
        case .stream(let buffer):
            switch buffer.offer(bytes) {
            case .accepted(let wakeConsumer):
                bodyBytes += Int64(bytes.count)
                if wakeConsumer { loop.scheduleDelivery(self) }
                return bytes.count
            case .pause:
                isReceivePaused = true
                return Int(parley_writefunc_pause)
            case .abort:
                abortReason = ResponseStreamBuffer.cancelledError
                return 0
            }
        }
    }

    /// Fills `buffer` with request-body bytes.
    func onRead(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let upload else { return 0 }
        switch upload.read(into: buffer) {
        case .bytes(let count):
            bytesMoved &+= Int64(count)
            return count
        case .end: return 0
        case .pause:
            isSendPaused = true
            return Int(parley_readfunc_pause)
        case .failed(let error):
            abortReason = error
            return Int(parley_readfunc_abort)
        }
    }

    /// libcurl rewinds the request body to send the request again by itself: bytes and files
    /// can be, a stream cannot (the transfer then fails with `CURLE_SEND_FAIL_REWIND`, which
    /// the error mapping reports as a lost connection, so a retry policy may send the whole
    /// request again with a new stream).
    func onSeek(offset: Int64, origin: Int32) -> Int32 {
        guard let upload else { return offset == 0 ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_CANTSEEK }
        guard origin == SEEK_SET, upload.seek(to: offset) else { return CURL_SEEKFUNC_CANTSEEK }
        return CURL_SEEKFUNC_OK
    }

    /// libcurl's progress report; emits throttled events.
    func onProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) -> Int32 {
        guard let handler = request.options.eventHandler, !isRedirectHop else { return 0 }
        progress.report(
            downloadTotal: downloadTotal, downloaded: downloaded, uploadTotal: uploadTotal, uploaded: uploaded,
            emit: handler)
        return 0
    }

    /// The stall error if no byte has moved for the stall timeout while the transfer was
    /// connected and not paused by its own consumer or producer; called by the loop a few
    /// times a second.
    func checkStall(now: ContinuousClock.Instant) -> TransportError? {
        guard let handle else { return nil }
        let waitingOnCaller = isReceivePaused || isSendPaused
        guard
            stallWatch.isStalled(
                bytesMoved: bytesMoved, excused: waitingOnCaller, now: now,
                timeout: request.options.stallTimeout)
        else { return nil }
        var preTransfer: curl_off_t = 0
        _ = parley_easy_getinfo_off_t(handle.pointer, CURLINFO_PRETRANSFER_TIME_T, &preTransfer)
        guard preTransfer > 0 else { return nil }  // Still connecting: the connect timeout governs.
        return TransportError(
            .stalledTransfer,
            message: "No data moved to or from \(CurlErrorMapping.hostAndPort(of: currentURL)) for "
                + "\(request.options.stallTimeout), so the transfer was stopped as stalled. The server or the network "
                + "stopped responding; retry later or raise TransferOptions.stallTimeout.",
            url: currentURL)
    }

    /// Unpauses one direction (the other keeps its state).
    func resume(receiving: Bool) {
        guard let handle else { return }
        if receiving { isReceivePaused = false } else { isSendPaused = false }
        let bits = (isReceivePaused ? parley_pause_recv : 0) | (isSendPaused ? Int32(CURLPAUSE_SEND) : 0)
        curl_easy_pause(handle.pointer, bits)
    }

    // MARK: - Loop thread: completion

    /// Turns libcurl's result into the next step.
    func outcome(of code: CURLcode) -> Step {
        guard let handle else {
            return .finished(.failure(TransportError(.other, message: "Transfer finished twice.")))
        }
        if code == CURLE_OK && isRedirectHop {
            do {
                try followRedirect(handle)
                return .redirect(handle)
            } catch {
                return .finished(.failure(TransportError(wrapping: error, url: currentURL)))
            }
        }
        metrics = CurlMetrics.read(from: handle.pointer, redirectCount: redirectCount)
        if code == CURLE_OK { return .finished(.success(())) }
        if let abortReason { return .finished(.failure(abortReason)) }
        return .finished(
            .failure(
                CurlErrorMapping.error(
                    for: code, handle: handle, url: currentURL, options: request.options, elapsed: elapsed,
                    headIsComplete: response.isComplete)))
    }

    private var elapsed: Duration { firstStart.map { ContinuousClock.now - $0 } ?? .zero }

    /// Rewrites the request for the redirect's target, per RFC 9110 §15.4.
    private func followRedirect(_ handle: CurlEasyHandle) throws {
        let status = response.status
        guard redirectCount < request.options.redirects.limit else {
            throw TransportError(
                .tooManyRedirects,
                message:
                    "\(currentURL) redirected more than \(request.options.redirects.limit) times; the server may be "
                    + "in a redirect loop. Raise RedirectPolicy.follow(limit:) only if the chain is expected.",
                url: currentURL)
        }
        var target: UnsafeMutablePointer<CChar>?
        _ = parley_easy_getinfo_string(handle.pointer, CURLINFO_REDIRECT_URL, &target)
        guard let target else {
            let location = response.location ?? ""
            let scheme = location.split(separator: ":", maxSplits: 1).first.map(String.init) ?? location
            throw TransportError(
                .redirectToRefusedScheme,
                message:
                    "\(currentURL) redirected to \"\(location.prefix(200))\", whose scheme \"\(scheme.prefix(20))\" "
                    + "is not http or https; the engine follows only http and https redirects.",
                url: currentURL)
        }
        let next = String(cString: target)
        let parts: RequestValidation.URLParts
        do {
            parts = try RequestValidation.parseURL(next)
        } catch let error as TransportError where error.category == .invalidURL {
            let scheme = next.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            if scheme != "http" && scheme != "https" {
                throw TransportError(
                    .redirectToRefusedScheme,
                    message: "\(currentURL) redirected to a \"\(scheme.prefix(20))\" URL; the engine follows only http "
                        + "and https redirects.",
                    url: currentURL)
            }
            throw TransportError(
                .invalidResponse,
                message: "\(currentURL) redirected to an invalid URL: \(error.message)", url: currentURL)
        }

        var head = request.head
        var body = request.body
        let from = currentURL
        // 303 turns everything but HEAD into GET; 301 and 302 turn POST into GET (as every
        // browser does); 307 and 308 keep the method and the body.
        let becomesGET =
            (status == 303 && head.method != .head) || ((status == 301 || status == 302) && head.method == .post)
        if becomesGET {
            head.method = .get
            body = nil
            for name in [HTTPField.Name.contentType, .contentLength, .contentEncoding, .transferEncoding] {
                head.headerFields[name] = nil
            }
        } else if let existing = body, !existing.isReplayable {
            throw TransportError(
                .invalidBody,
                message: "\(currentURL) answered \(status) to \(parts.scheme)://\(parts.authority)\(parts.path), which "
                    + "requires sending the body again, but the body is a one-shot stream. Use a replayable body "
                    + "(bytes, a file, or RequestBody.stream(length:_:) with a factory).",
                url: currentURL)
        }

        var stripped: [HTTPField.Name] = []
        if Self.origin(scheme: head.scheme, authority: head.authority)
            != Self.origin(scheme: parts.scheme, authority: parts.authority)
        {
            for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] + Self.hostField
            where head.headerFields[name] != nil {
                head.headerFields[name] = nil
                if !Self.hostField.contains(name) { stripped.append(name) }
            }
        }
        head.scheme = parts.scheme
        head.authority = parts.authority
        head.path = parts.path
        request.head = head
        request.body = body
        redirectCount += 1
        let nextURL = "\(parts.scheme)://\(parts.authority)\(parts.path)"
        configuration.logger.debug(
            "↪ \(status) \(LogRedaction.redactedURL(from)) → \(LogRedaction.redactedURL(nextURL))")
        request.options.eventHandler?(
            .redirect(
                RedirectEvent(
                    from: from, to: nextURL, status: status, method: head.method, strippedHeaders: stripped)))
    }

    /// Hands the result to the waiting task.
    func complete(_ outcome: Result<Void, TransportError>) {
        if case .success = outcome, let handler = request.options.eventHandler {
            progress.reportFinal(emit: handler)
            if let metrics { handler(.metrics(metrics)) }
        }
        logCompletion(outcome)
        switch mode {
        case .collect:
            guard let continuation = dataContinuation else { return }
            dataContinuation = nil
            switch outcome {
            case .success:
                continuation.resume(
                    returning: CollectedTransfer(head: response, body: body, url: currentURL, metrics: metrics))
            case .failure(let error):
                continuation.resume(throwing: error)
            }
        case .stream(let buffer):
            if !headDelivered {
                if case .failure(let error) = outcome {
                    headDelivered = true
                    headContinuation?.resume(throwing: error)
                    headContinuation = nil
                    buffer.finish(outcome)
                    return
                }
                deliverHead()
            }
            buffer.finish(outcome)
        }
    }

    /// Whether the loop will call ``deliver()`` at the end of this pass.
    var isScheduledForDelivery = false

    /// Hands a streaming consumer what arrived in this pass: the head, then pending bytes.
    func deliver() {
        deliverHead()
        if case .stream(let buffer) = mode, buffer.flush() { resume(receiving: true) }
    }

    /// Resumes the task waiting in `send` with the response head (stream mode).
    func deliverHead() {
        guard !headDelivered, case .stream(let buffer) = mode else { return }
        headDelivered = true
        headContinuation?.resume(returning: StreamedTransfer(head: response, body: buffer, url: currentURL))
        headContinuation = nil
    }

    private func logCompletion(_ outcome: Result<Void, TransportError>) {
        guard configuration.logger.logLevel <= .debug else { return }
        switch outcome {
        case .success:
            configuration.logger.debug(
                "← \(response.status) \(LogRedaction.redactedURL(currentURL)) (\(bodyBytes) bytes)")
            if configuration.logger.logLevel == .trace, let head = try? response.makeHead(url: currentURL) {
                configuration.logger.trace("response headers:\n\(head.headerFields.redactedForLogging)")
            }
        case .failure(let error):
            configuration.logger.debug("✕ \(LogRedaction.redactedURL(currentURL)): \(error)")
        }
    }

    // MARK: - Helpers

    /// `Host`, which swift-http-types spells as the `:authority` pseudo field but a caller may still set.
    private static let hostField = [HTTPField.Name("Host")].compactMap { $0 }

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    private func tooLargeError() -> TransportError {
        TransportError(
            .responseTooLarge,
            message: "The response body from \(currentURL) is larger than the in-memory limit of "
                + "\(request.options.maximumBodySize) bytes (counted after decoding). Stream it with "
                + "HTTPTransport.send(_:) or raise TransferOptions.maximumBodySize.",
            url: currentURL)
    }

    private func deadlineError(_ deadline: Duration) -> TransportError {
        TransportError(
            .deadlineExceeded,
            message: "The request to \(currentURL) did not complete within its deadline of \(deadline).",
            url: currentURL)
    }

    /// `scheme://host:port` with the default port filled in, lowercased.
    static func origin(scheme: String?, authority: String?) -> String {
        let scheme = (scheme ?? "http").lowercased()
        var authority = (authority ?? "").lowercased()
        let hasPort: Bool
        if let bracket = authority.lastIndex(of: "]") {
            hasPort = authority[bracket...].contains(":")
        } else {
            hasPort = authority.contains(":")
        }
        if !hasPort { authority += scheme == "https" ? ":443" : ":80" }
        return "\(scheme)://\(authority)"
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// What a collected transfer hands back to the awaiting task, which builds the response
/// head there rather than on the loop thread.
struct CollectedTransfer: Sendable {
    let head: ResponseHeadParser
    let body: Data
    let url: String
    let metrics: TransferMetrics?

    /// The response, with its head validated.
    func makeResponse() throws -> DataResponse {
        DataResponse(head: try head.makeHead(url: url), body: body, url: url, metrics: metrics)
    }
}

/// What a streamed transfer hands back when its head has arrived.
struct StreamedTransfer: Sendable {
    let head: ResponseHeadParser
    let body: ResponseStreamBuffer
    let url: String

    /// The response, with its head validated; a malformed head cancels the transfer.
    func makeResponse() throws -> TransportResponse {
        do {
            return TransportResponse(head: try head.makeHead(url: url), body: ResponseBody(stream: body), url: url)
        } catch {
            body.cancel()
            throw error
        }
    }
}
