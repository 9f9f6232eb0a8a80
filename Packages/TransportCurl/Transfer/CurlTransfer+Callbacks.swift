import CCurl
import Foundation
import Transport

// What the C callbacks of `CurlCallbacks.swift` call: one entry point per callback, each run on
// the loop thread inside `curl_multi_socket_action`.
extension CurlTransfer {
    /// A header line that ends a head or that the head parser refused (`parley_head_callback`
    /// calls the transfer for these alone); returns `false` to abort the transfer.
    func onHeadEvent(_ code: Int32) -> Bool {
        switch response.event(code) {
        case .continue:
            return true
        case .tooLarge:
            abortReason = TransportError(
                .headersTooLarge,
                message: "The response headers from \(currentURL) exceed the limit of "
                    + "\(request.options.maximumHeaderSize) bytes; raise TransferOptions.maximumHeaderSize if the server "
                    + "is trusted.",
                url: currentURL)
            return false
        case .invalid(let problem):
            abortReason = TransportError(
                .invalidResponse, message: "The response from \(currentURL) has a malformed head: \(problem).",
                url: currentURL)
            return false
        case .headComplete:
            return headComplete()
        case .interimComplete:
            // Built only for a handler: a transfer without one pays a comparison.
            if let handler = request.options.eventHandler { handler(.informationalResponse(response.makeHead())) }
            return true
        }
    }

    /// Decides what the finished head means; returns `false` to abort the transfer.
    private func headComplete() -> Bool {
        if let jar = configuration.cookieJar { storeCookies(in: jar) }
        if isAnsweredChallenge(status: response.status) {
            isAuthChallengeHop = true
            return true
        }
        if response.status == 407, let proxy = CurlErrorMapping.proxyName(for: request.options, url: currentURL) {
            abortReason = CurlErrorMapping.proxyAuthenticationError(proxy: proxy, url: currentURL, curlCode: nil)
            return false
        }
        if RedirectRules(limit: request.options.redirects.limit).follows(
            status: response.status, hasLocation: response.location != nil)
        {
            isRedirectHop = true
            return true
        }
        if case .collect = mode, !response.hasContentEncoding, let length = response.contentLength {
            if length > request.options.maximumBodySize {
                abortReason = tooLargeError()
                return false
            }
            // The body arrives in one buffer of its announced size, not in doublings. Capped,
            // so that a server announcing more than it sends cannot make the engine reserve it.
            if length > 0 { body.reserveCapacity(Int(min(length, Self.largestReservation))) }
        }
        if case .stream = mode { scheduleDelivery() }
        return true
    }

    /// Body bytes, already decoded when the response was compressed.
    func onWrite(_ bytes: UnsafeRawBufferPointer) -> Int {
        // Held for its handle's suspension: libcurl keeps the bytes and hands them over again
        // once unpaused (a new hop starts unpaused, so the callback pauses it again).
        if isSuspended { return Int(parley_writefunc_pause) }
        bytesMoved &+= Int64(bytes.count)
        if isRedirectHop || isAuthChallengeHop { return bytes.count }
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
                if wakeConsumer { scheduleDelivery() }
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
        if isSuspended { return Int(parley_readfunc_pause) }
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
        guard let handler = request.options.eventHandler, !isRedirectHop, !isAuthChallengeHop else { return 0 }
        progress.report(
            downloadTotal: downloadTotal, downloaded: downloaded, uploadTotal: uploadTotal, uploaded: uploaded,
            emit: handler)
        return 0
    }

    /// The most a collected body reserves ahead of its bytes, whatever its `Content-Length`.
    static var largestReservation: Int64 { 8 << 20 }

    /// The error for a collected body past ``TransferOptions/maximumBodySize``.
    private func tooLargeError() -> TransportError {
        TransportError(
            .responseTooLarge,
            message: "The response body from \(currentURL) is larger than the in-memory limit of "
                + "\(request.options.maximumBodySize) bytes (counted after decoding). Stream it with "
                + "HTTPTransport.send(_:) or raise TransferOptions.maximumBodySize.",
            url: currentURL)
    }
}
