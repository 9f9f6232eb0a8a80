import CCurl
import Testing
import Transport

@testable import TransportCurl

/// The proxy rows of the error mapping, as a table: a code and what the handle told about the
/// proxy → the category, and a message that names the proxy and never its password.
@Suite struct ProxyErrorMappingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let code: CURLcode
        let connectStatus: Int
        let proxyCode: Int
        let category: TransportError.Category
        let testDescription: String

        init(
            _ name: String, _ code: CURLcode, connectStatus: Int = 0, proxyCode: Int = 0,
            _ category: TransportError.Category
        ) {
            self.code = code
            self.connectStatus = connectStatus
            self.proxyCode = proxyCode
            self.category = category
            testDescription = "\(name) (CURLcode \(code.rawValue))"
        }
    }

    static let rows: [Row] = [
        Row("a proxy name that does not resolve", CURLE_COULDNT_RESOLVE_PROXY, .dnsFailure),
        Row("a proxy that refuses connections", CURLE_COULDNT_CONNECT, .connectionRefused),
        Row("CONNECT answered 403", CURLE_COULDNT_CONNECT, connectStatus: 403, .proxyFailure),
        Row("CONNECT answered 407", CURLE_COULDNT_CONNECT, connectStatus: 407, .proxyAuthenticationRequired),
        Row("CONNECT answered 407 (receive error)", CURLE_RECV_ERROR, connectStatus: 407, .proxyAuthenticationRequired),
        Row("CONNECT answered 401", CURLE_COULDNT_CONNECT, connectStatus: 401, .proxyAuthenticationRequired),
        Row(
            "a SOCKS proxy that rejects the user", CURLE_PROXY, proxyCode: Int(CURLPX_USER_REJECTED.rawValue),
            .proxyAuthenticationRequired),
        Row(
            "a SOCKS proxy that cannot reach the host", CURLE_PROXY,
            proxyCode: Int(CURLPX_REPLY_HOST_UNREACHABLE.rawValue), .proxyFailure),
        Row(
            "a host this machine cannot resolve for a SOCKS proxy", CURLE_PROXY,
            proxyCode: Int(CURLPX_RESOLVE_HOST.rawValue), .dnsFailure),
    ]

    @Test(arguments: rows)
    func mapsProxyFailures(row: Row) {
        var proxy = Proxy.http(host: "proxy.internal", port: 3128)
        proxy.credentials = .basic(user: "build", password: "proxy-secret")
        var options = TransferOptions()
        options.proxy = .proxy(proxy)
        let facts = CurlErrorMapping.Facts(
            detail: "detail", wasConnected: false, looksLikePlainHTTPSentToTLS: false,
            proxy: CurlErrorMapping.proxyName(for: options, url: "https://example.com/"),
            proxyConnectStatus: row.connectStatus, proxyFailureCode: row.proxyCode)
        let error = CurlErrorMapping.error(
            for: row.code, facts: facts, url: "https://example.com/", options: options, elapsed: .seconds(1),
            headIsComplete: false)
        #expect(error.category == row.category)
        #expect(error.mayHaveReachedServer == false)
        #expect(error.message.contains("http://proxy.internal:3128"), "\(error.message)")
        #expect(!error.description.contains("proxy-secret"))
    }

    @Test func aDirectOrSocketTransferNamesNoProxy() {
        var options = TransferOptions()
        options.proxy = .direct
        #expect(CurlErrorMapping.proxyName(for: options, url: "http://example.com/") == nil)
        options.proxy = .proxy(.http(host: "proxy.internal"))
        options.unixSocketPath = "/run/app.sock"
        #expect(CurlErrorMapping.proxyName(for: options, url: "http://example.com/") == nil)
    }
}
