import CCurl

// The multi handle's C callbacks, which libcurl calls on the loop thread from inside
// `curl_multi_socket_action`, `curl_multi_add_handle`, `curl_multi_remove_handle`,
// `curl_easy_pause` and `curl_multi_cleanup`. Each is a global function (no captures) and finds
// its loop through the user-data pointer, an unretained `CurlEventLoop`: the loop lives until
// its thread has freed the multi handle, after which libcurl calls nothing.

/// `CURLMOPT_SOCKETFUNCTION`: what libcurl wants from a socket (`CURL_POLL_*`).
let curlSocketCallback: curl_socket_callback = { easy, socket, what, context, _ in
    guard let context else { return -1 }
    Unmanaged<CurlEventLoop>.fromOpaque(context).takeUnretainedValue().onSocket(socket, what: what, easy: easy)
    return 0
}

/// `CURLMOPT_TIMERFUNCTION`: when libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`.
let curlTimerCallback: curl_multi_timer_callback = { _, milliseconds, context in
    guard let context else { return -1 }
    Unmanaged<CurlEventLoop>.fromOpaque(context).takeUnretainedValue().onTimer(milliseconds: milliseconds)
    return 0
}
