import Testing

@testable import TransportCurl

/// Whether a transport finds a proxy in its environment, read once when it is made: the engine
/// then tells libcurl "no proxy" outright instead of letting it read five environment variables
/// on every transfer. The variables that count are the ones libcurl reads for an `http` or
/// `https` URL; the child-process tests of `EnvironmentProxyTests` show that a named proxy is
/// still used and `no_proxy` still honoured.
///
/// Checked to fail: with every variable counted as naming a proxy, the empty environment is
/// read as one that names a proxy; with `HTTPS_PROXY` or `ALL_PROXY` left out of the names,
/// their rows are read as naming none.
@Suite struct EnvironmentProxySettingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var namesNoProxy: Bool
        var testDescription: String { "\(environment) names no proxy: \(namesNoProxy)" }
    }

    static let rows: [Row] = [
        Row(environment: [:], namesNoProxy: true),
        Row(environment: ["PATH": "/usr/bin", "HOME": "/root"], namesNoProxy: true),
        Row(environment: ["http_proxy": "http://proxy:3128"], namesNoProxy: false),
        Row(environment: ["https_proxy": "http://proxy:3128"], namesNoProxy: false),
        Row(environment: ["HTTPS_PROXY": "http://proxy:3128"], namesNoProxy: false),
        Row(environment: ["all_proxy": "socks5://proxy:1080"], namesNoProxy: false),
        Row(environment: ["ALL_PROXY": "socks5://proxy:1080"], namesNoProxy: false),
        // libcurl takes `http_proxy` in lower case only (an upper-case one may come from a
        // request's `Proxy:` header in a CGI program).
        Row(environment: ["HTTP_PROXY": "http://proxy:3128"], namesNoProxy: true),
        // An empty value names nothing, as libcurl reads it.
        Row(environment: ["http_proxy": "", "ALL_PROXY": ""], namesNoProxy: true),
        // A bypass list without a proxy: nothing to bypass.
        Row(environment: ["no_proxy": "example.com", "NO_PROXY": "*"], namesNoProxy: true),
    ]

    @Test(arguments: rows)
    func readsTheProxyVariablesLibcurlReads(row: Row) {
        let settings = CurlTransfer.Settings(CurlTransport.Configuration(), environment: row.environment)
        #expect(settings.environmentNamesNoProxy == row.namesNoProxy)
    }
}
