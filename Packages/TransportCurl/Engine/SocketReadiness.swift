import CCurl

/// What the loop tells libcurl about a socket that epoll reported ready: the `CURL_CSELECT_*`
/// bits of `curl_multi_socket_action`, from the epoll events and what the socket is watched
/// for. A pure value, tested as a table.
///
/// It reads the events as libcurl's own `Curl_socket_check` reads `poll`'s: for a socket
/// watched for reading, data, an error or a hang-up all make it readable, so that libcurl
/// reads and meets the end of the stream or the socket's error itself (and reports the real
/// cause); for a socket watched for writing, an error or a hang-up is `CURL_CSELECT_ERR`. An
/// event for a descriptor the set no longer watches (libcurl removed it while an earlier
/// event of the same wait was handled) gives no bits: the loop then skips it.
enum SocketReadiness {
    /// The `CURL_CSELECT_*` bits for `events` (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, `EPOLLHUP`) on
    /// a socket watched for `watched` (`EPOLLIN`, `EPOLLOUT`, both, or 0).
    static func selectBits(events: UInt32, watched: UInt32) -> Int32 {
        var bits: Int32 = 0
        let trouble = parley_epoll_err | parley_epoll_hup
        if watched & parley_epoll_in != 0, events & (parley_epoll_in | trouble) != 0 {
            bits |= CURL_CSELECT_IN
        }
        if watched & parley_epoll_out != 0 {
            if events & parley_epoll_out != 0 { bits |= CURL_CSELECT_OUT }
            if events & trouble != 0 { bits |= CURL_CSELECT_ERR }
        }
        return bits
    }
}
