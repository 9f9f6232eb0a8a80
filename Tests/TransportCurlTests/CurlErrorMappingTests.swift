import CCurl
import Glibc
import Testing
import Transport

@testable import TransportCurl

/// The curl error mapping as a table, CURLcode × facts → category, without a transfer.
///
/// Checked to fail without the mapping's distinctions: with `CURLE_OUT_OF_MEMORY` mapped to
/// `.other` whatever the head, the row "an over-long header line before the head is complete"
/// fails; with the deadline not consulted, "a timeout at the deadline" fails.
@Suite struct CurlErrorMappingTests {
    /// One row: a code, what the handle told, and the error the mapping must give.
    struct Row: Sendable, CustomTestStringConvertible {
        /// libcurl's result.
        let code: CURLcode
        /// Whether the connection was established.
        let connected: Bool
        /// Whether the failure looks like plain HTTP sent to a TLS port.
        let plainToTLS: Bool
        /// Whether the process had no file descriptor left for the transfer's socket.
        let outOfDescriptors: Bool
        /// Whether the final head had been complete.
        let headComplete: Bool
        /// Time since the transfer started; the deadline in every row is 5 s.
        let elapsed: Duration
        /// The expected category.
        let category: TransportError.Category
        /// Whether the error may say the request reached the server.
        let reached: Bool
        /// What the row says, for the test's name.
        let testDescription: String

        /// A row named `name`.
        init(
            _ name: String, _ code: CURLcode, connected: Bool = true, plainToTLS: Bool = false,
            outOfDescriptors: Bool = false, headComplete: Bool = false, elapsed: Duration = .seconds(1),
            _ category: TransportError.Category, reached: Bool
        ) {
            self.code = code
            self.connected = connected
            self.plainToTLS = plainToTLS
            self.outOfDescriptors = outOfDescriptors
            self.headComplete = headComplete
            self.elapsed = elapsed
            self.category = category
            self.reached = reached
            testDescription = "\(name) (CURLcode \(code.rawValue))"
        }
    }

    static let rows: [Row] = [
        Row("an unknown host", CURLE_COULDNT_RESOLVE_HOST, connected: false, .dnsFailure, reached: false),
        Row("an unknown proxy", CURLE_COULDNT_RESOLVE_PROXY, connected: false, .dnsFailure, reached: false),
        Row("a refused connection", CURLE_COULDNT_CONNECT, connected: false, .connectionRefused, reached: false),
        Row(
            "a socket the process had no descriptor for", CURLE_COULDNT_CONNECT, connected: false,
            outOfDescriptors: true, .outOfDescriptors, reached: false),
        Row(
            "a resolver that had no descriptor for its socket pair", CURLE_COULDNT_RESOLVE_HOST, connected: false,
            outOfDescriptors: true, .outOfDescriptors, reached: false),
        Row("a timeout before connecting", CURLE_OPERATION_TIMEDOUT, connected: false, .connectTimeout, reached: false),
        Row("a timeout once connected", CURLE_OPERATION_TIMEDOUT, .stalledTransfer, reached: true),
        Row(
            "a timeout at the deadline", CURLE_OPERATION_TIMEDOUT, elapsed: .seconds(5), .deadlineExceeded,
            reached: true),
        Row(
            "a timeout at the deadline before connecting", CURLE_OPERATION_TIMEDOUT, connected: false,
            elapsed: .seconds(5), .deadlineExceeded, reached: false),
        Row("a TLS handshake failure", CURLE_SSL_CONNECT_ERROR, connected: false, .tlsFailure, reached: false),
        Row("an untrusted certificate", CURLE_PEER_FAILED_VERIFICATION, connected: false, .tlsFailure, reached: false),
        Row("a bad client certificate", CURLE_SSL_CERTPROBLEM, connected: false, .tlsFailure, reached: false),
        Row("an unreadable CA file", CURLE_SSL_CACERT_BADFILE, connected: false, .tlsFailure, reached: false),
        Row("a pin mismatch", CURLE_SSL_PINNEDPUBKEYNOTMATCH, connected: false, .tlsFailure, reached: false),
        Row("a send error", CURLE_SEND_ERROR, .connectionReset, reached: true),
        Row("a receive error", CURLE_RECV_ERROR, .connectionReset, reached: true),
        Row("a reset from a TLS port", CURLE_RECV_ERROR, plainToTLS: true, .connectionReset, reached: true),
        Row("a stream that cannot be rewound", CURLE_SEND_FAIL_REWIND, .connectionReset, reached: true),
        Row("a truncated body", CURLE_PARTIAL_FILE, headComplete: true, .incompleteBody, reached: true),
        Row("an empty reply", CURLE_GOT_NOTHING, .emptyReply, reached: true),
        Row("an empty reply from a TLS port", CURLE_GOT_NOTHING, plainToTLS: true, .emptyReply, reached: true),
        Row("an undecodable body", CURLE_BAD_CONTENT_ENCODING, headComplete: true, .badContentEncoding, reached: true),
        Row("libcurl's own redirect limit", CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects, reached: true),
        Row("a reply that is not HTTP", CURLE_UNSUPPORTED_PROTOCOL, .invalidResponse, reached: true),
        Row("a TLS alert to plain HTTP", CURLE_UNSUPPORTED_PROTOCOL, plainToTLS: true, .invalidResponse, reached: true),
        Row("a malformed URL", CURLE_URL_MALFORMAT, connected: false, .invalidURL, reached: false),
        Row("a body over libcurl's size limit", CURLE_FILESIZE_EXCEEDED, .responseTooLarge, reached: true),
        Row("an abort from a callback", CURLE_ABORTED_BY_CALLBACK, .cancelled, reached: true),
        Row("a weird server reply", CURLE_WEIRD_SERVER_REPLY, .invalidResponse, reached: true),
        Row("an HTTP/2 framing error", CURLE_HTTP2, .invalidResponse, reached: true),
        Row("an HTTP/2 stream error", CURLE_HTTP2_STREAM, .invalidResponse, reached: true),
        Row(
            "an over-long header line before the head is complete", CURLE_OUT_OF_MEMORY, .headersTooLarge, reached: true
        ),
        Row("out of memory after the head", CURLE_OUT_OF_MEMORY, headComplete: true, .other, reached: true),
        Row("any other code", CURLE_RANGE_ERROR, .other, reached: true),
    ]

    @Test(arguments: rows)
    func mapsEachCodeToItsCategory(row: Row) {
        var options = TransferOptions()
        options.deadline = .seconds(5)
        let error = CurlErrorMapping.error(
            for: row.code,
            facts: CurlErrorMapping.Facts(
                detail: "libcurl's detail", wasConnected: row.connected, looksLikePlainHTTPSentToTLS: row.plainToTLS,
                ranOutOfDescriptors: row.outOfDescriptors, descriptorLimit: row.outOfDescriptors ? 256 : nil),
            url: "http://api.example.com:8080/path", options: options, elapsed: row.elapsed,
            headIsComplete: row.headComplete)
        #expect(error.category == row.category)
        #expect(error.mayHaveReachedServer == row.reached)
        #expect(error.curlCode == Int(row.code.rawValue))
        #expect(error.url == "http://api.example.com:8080/path")
    }

    @Test(arguments: [CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_UNSUPPORTED_PROTOCOL])
    func namesTheTLSPortWhenPlainHTTPWasSentToIt(code: CURLcode) {
        let facts = CurlErrorMapping.Facts(detail: "detail", wasConnected: true, looksLikePlainHTTPSentToTLS: true)
        let error = CurlErrorMapping.error(
            for: code, facts: facts, url: "http://api.example.com:8443/", options: TransferOptions(),
            elapsed: .zero, headIsComplete: false)
        #expect(error.message.contains("https://api.example.com:8443/"))
    }

    @Test func saysTheLibcurlHeaderLimitCannotBeRaised() {
        let facts = CurlErrorMapping.Facts(detail: "detail", wasConnected: true, looksLikePlainHTTPSentToTLS: false)
        let error = CurlErrorMapping.error(
            for: CURLE_OUT_OF_MEMORY, facts: facts, url: "http://api.example.com/", options: TransferOptions(),
            elapsed: .zero, headIsComplete: false)
        #expect(error.message.contains("cannot raise this limit"))
    }

    @Test func saysTheEngineKeptTheLastDescriptorsAndWhatToDo() {
        let facts = CurlErrorMapping.Facts(
            detail: "Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
            wasConnected: false, looksLikePlainHTTPSentToTLS: false, ranOutOfDescriptors: true, descriptorLimit: 4096,
            keptReserve: true)
        let error = CurlErrorMapping.error(
            for: CURLE_COULDNT_CONNECT, facts: facts, url: "http://127.0.0.1:8080/", options: TransferOptions(),
            elapsed: .zero, headIsComplete: false)
        #expect(error.category == .outOfDescriptors)
        #expect(error.message.contains("near the end of its file descriptors"))
        #expect(error.message.contains("RLIMIT_NOFILE, is 4096"))
        #expect(error.message.contains("leaves the last 128 to the rest of the process"))
        #expect(error.message.contains("127.0.0.1:8080"))
        #expect(error.message.contains("ulimit -n"))
        #expect(error.message.contains("maximumTotalConnections"))
        #expect(error.mayHaveReachedServer == false)
    }

    @Test func saysTheProcessRanOutOfDescriptorsAndWhatToDo() {
        let facts = CurlErrorMapping.Facts(
            detail: "Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
            wasConnected: false, looksLikePlainHTTPSentToTLS: false, ranOutOfDescriptors: true, descriptorLimit: 256)
        let error = CurlErrorMapping.error(
            for: CURLE_COULDNT_CONNECT, facts: facts, url: "http://127.0.0.1:8080/", options: TransferOptions(),
            elapsed: .zero, headIsComplete: false)
        #expect(error.message.contains("ran out of file descriptors"))
        #expect(error.message.contains("RLIMIT_NOFILE, is 256"))
        #expect(error.message.contains("ulimit -n"))
        #expect(error.message.contains("maximumConnectionsPerHost"))
        #expect(error.message.contains("maximumTotalConnections"))
        #expect(!error.message.contains("Check that the server is running"))
    }

    /// libcurl's errno decides when it recorded one; without one, the probe finds descriptors to
    /// spare in this process, whose limit is far above what it uses.
    @Test(arguments: [
        (CURLE_COULDNT_CONNECT, EMFILE, true), (CURLE_COULDNT_CONNECT, ENFILE, true),
        (CURLE_COULDNT_RESOLVE_HOST, EMFILE, true), (CURLE_COULDNT_CONNECT, ECONNREFUSED, false),
        (CURLE_COULDNT_CONNECT, 0, false), (CURLE_RECV_ERROR, EMFILE, false),
    ])
    func tellsRunningOutOfDescriptorsFromOtherFailures(code: CURLcode, osErrno: Int32, ranOut: Bool) {
        #expect(CurlErrorMapping.ranOutOfDescriptors(code: code, osErrno: osErrno) == ranOut)
    }

    @Test func readsTheDescriptorLimit() throws {
        let limit = try #require(CurlErrorMapping.descriptorLimit())
        var expected = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &expected) == 0)
        #expect(limit == Int(clamping: expected.rlim_cur))
    }
}
