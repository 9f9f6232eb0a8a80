import CCurl

// The C callbacks libcurl calls on the loop thread. Each is a global function (no captures),
// and finds its transfer through the user-data pointer: the `Unmanaged` reference that
// `CurlTransfer.attach` retained, valid until `CurlTransfer.detach` releases it, which
// happens only after the handle has left the multi handle, so never during a callback.

/// `CURLOPT_WRITEFUNCTION`: body bytes.
let curlWriteCallback: curl_write_callback = { data, size, count, context in
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onWrite(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// What `parley_head_callback`, libcurl's header callback, calls when a head ends or a line is
/// refused: the event, and non-zero to go on.
let curlHeadEventCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int = { context, event in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onHeadEvent(event) ? 1 : 0
}

/// `CURLOPT_READFUNCTION`: request-body bytes.
let curlReadCallback: curl_read_callback = { data, size, count, context in
    guard let context, let data else { return Int(parley_readfunc_abort) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onRead(UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

/// `CURLOPT_SEEKFUNCTION`: rewinds the request body, which libcurl asks for when it sends a
/// request again by itself (a reused connection that closed before answering, an
/// authentication round).
let curlSeekCallback: curl_seek_callback = { context, offset, origin in
    guard let context else { return CURL_SEEKFUNC_FAIL }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onSeek(offset: Int64(offset), origin: origin)
}

/// `CURLOPT_PREREQFUNCTION`: libcurl is about to send the request, on a new or a reused
/// connection; called again when libcurl sends it again by itself.
let curlPrereqCallback: curl_prereq_callback = { context, _, _, _, _ in
    if let context {
        Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().onRequestSent()
    }
    return CURL_PREREQFUNC_OK
}

/// `CURLOPT_XFERINFOFUNCTION`: progress; returning non-zero would abort.
let curlProgressCallback: curl_xferinfo_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.onProgress(
        downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded),
        uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
}
