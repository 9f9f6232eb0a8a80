extension ScriptedSocketServer {
    /// What a ``ScriptedSocketServer`` does with each connection once the request head has
    /// arrived (everything up to the blank line, `\r\n\r\n`).
    public enum Behaviour: Sendable, Hashable {
        /// Close without sending a byte. The server shuts down its side first, so the client
        /// sees a clean end of stream: curl reports `CURLE_GOT_NOTHING` ("Empty reply from server").
        case closeImmediately
        /// Abort the connection: `SO_LINGER` 0 then `close`, so the kernel sends RST. curl
        /// reports `CURLE_RECV_ERROR` ("Connection reset by peer").
        case reset
        /// Write `bytes` exactly as given, for responses no real server sends: a body shorter
        /// than its `Content-Length`, a lying `Content-Encoding`, oversized or malformed headers,
        /// a redirect built by hand.
        ///
        /// With `thenClose`, the server then shuts down its side and closes once the client has
        /// gone (or after 2 s). Without it, the connection stays open and every further request
        /// head on it gets the same bytes, as a keep-alive server would answer.
        case respond(_ bytes: [UInt8], thenClose: Bool)
        /// Never answer: keep the connection open until the client closes it or the server stops.
        case holdOpen

        /// Writes `response` as UTF-8 and closes: a shorthand for hand-written HTTP.
        ///
        /// ```swift
        /// .respond("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", thenClose: true)
        /// ```
        ///
        /// - Parameters:
        ///   - response: The raw response, `\r\n` line endings and all.
        ///   - thenClose: Whether to close after writing; `true` by default.
        /// - Returns: `.respond(Array(response.utf8), thenClose: thenClose)`.
        public static func respond(_ response: String, thenClose: Bool = true) -> Behaviour {
            .respond(Array(response.utf8), thenClose: thenClose)
        }
    }
}
