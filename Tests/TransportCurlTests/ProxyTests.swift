import Foundation
import Glibc
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// Requests through real proxies on loopback: tinyproxy (HTTP, with CONNECT) and microsocks
/// (SOCKS5), started by `Tools/scripts/test-servers.sh`.
@Suite(.enabled(if: ExternalServers.proxiesAvailable, "the test proxies are not running: use `make test`"))
struct ProxyTests {
    let httpbin: String
    let proxyURL: String

    init() throws {
        httpbin = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
        proxyURL = try ExternalServers.require(ExternalServers.proxyURL, "PARLEY_PROXY_URL")
    }

    /// The proxy at `url` (`scheme://127.0.0.1:port`).
    static func proxy(_ url: String) throws -> Proxy {
        let parts = try #require(URLComponents(string: url))
        let kind = try #require(Proxy.Kind(rawValue: parts.scheme ?? ""))
        return Proxy(kind: kind, host: try #require(parts.host), port: try #require(parts.port))
    }

    /// The headers httpbin received, `Via` included (`show_env`).
    private func receivedHeaders(_ response: DataResponse) throws -> [String: String] {
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        return try #require(object["headers"] as? [String: String])
    }

    @Test func forwardsAnHTTPRequestThroughAnHTTPProxy() async throws {
        let proxy = try Self.proxy(proxyURL)
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: httpbin + "/headers?show_env=1")
            request.options.proxy = .proxy(proxy)
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            #expect(try receivedHeaders(response)["Via"]?.contains("tinyproxy") == true)
        }
    }

    @Test func aTransportWideProxyAppliesToEveryRequest() async throws {
        let proxy = try Self.proxy(proxyURL)
        try await withTransport(.with { $0.proxy = .proxy(proxy) }) { transport in
            let response = try await transport.data(
                for: TransportRequest(method: .get, url: httpbin + "/headers?show_env=1"))
            #expect(try receivedHeaders(response)["Via"]?.contains("tinyproxy") == true)
            // A request's own setting wins over the transport's.
            var direct = try TransportRequest(method: .get, url: httpbin + "/headers?show_env=1")
            direct.options.proxy = .direct
            #expect(try receivedHeaders(try await transport.data(for: direct))["Via"] == nil)
        }
    }

    @Test func tunnelsHTTPSThroughConnect() async throws {
        let tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        let log = try ExternalServers.require(ExternalServers.proxyLog, "PARLEY_PROXY_LOG")
        let authority = try #require(URLComponents(string: tlsURL)).port.map { "127.0.0.1:\($0)" } ?? ""
        let before = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let configuration = CurlTransport.Configuration.with { $0.tls.caFile = ExternalServers.testCA }
        try await withTransport(configuration) { transport in
            var request = try TransportRequest(method: .get, url: tlsURL + "/small.bin")
            request.options.proxy = .proxy(try Self.proxy(proxyURL))
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            #expect(response.body.count == 200)
            // nginx's head, not the proxy's answer to CONNECT.
            #expect(response.head.headerFields[.contentLength] == "200")
            #expect(response.head.headerFields[.server]?.hasPrefix("nginx") == true)
        }
        let after = try String(contentsOfFile: log, encoding: .utf8)
        let newLines = after.dropFirst(before.count)
        #expect(newLines.contains("CONNECT \(authority)"), "the proxy's log has no CONNECT to \(authority)")
    }

    @Test func tunnelsHTTPTooWhenAsked() async throws {
        let log = try ExternalServers.require(ExternalServers.proxyLog, "PARLEY_PROXY_LOG")
        var proxy = try Self.proxy(proxyURL)
        proxy.tunnelsEveryRequest = true
        let authority = try #require(URLComponents(string: httpbin)).port.map { "127.0.0.1:\($0)" } ?? ""
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: httpbin + "/headers?show_env=1")
            request.options.proxy = .proxy(proxy)
            let response = try await transport.data(for: request)
            // Tunnelled, the proxy cannot add its Via field.
            #expect(try receivedHeaders(response)["Via"] == nil)
        }
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("CONNECT \(authority)"))
    }

    @Test func goesThroughSOCKS5WithRemoteNames() async throws {
        let socks = try Self.proxy(try ExternalServers.require(ExternalServers.socksURL, "PARLEY_SOCKS_URL"))
        #expect(socks.kind == .socks5h)
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: httpbin + "/ip")
            request.options.proxy = .proxy(socks)
            let response = try await transport.data(for: request)
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
            // microsocks connects out from 127.0.0.2: the request went through it.
            #expect(object["origin"] == "127.0.0.2")
        }
    }

    @Test func socks5hHandsTheNameToTheProxyAndSocks5ResolvesItHere() async throws {
        let socks = try Self.proxy(try ExternalServers.require(ExternalServers.socksURL, "PARLEY_SOCKS_URL"))
        let url = "http://parley-no-such-host.invalid/"
        try await withTransport { transport in
            var remote = try TransportRequest(method: .get, url: url)
            remote.options.proxy = .proxy(.socks5(host: socks.host, port: socks.port))
            let remoteError = await #expect(throws: TransportError.self) { try await transport.data(for: remote) }
            // The proxy failed to resolve it: the name was sent to the proxy.
            #expect(remoteError?.category == .proxyFailure, "\(String(describing: remoteError))")
            #expect(remoteError?.message.contains("socks5h://127.0.0.1:\(socks.port)") == true)

            var local = try TransportRequest(method: .get, url: url)
            local.options.proxy = .proxy(.socks5(host: socks.host, port: socks.port, resolvesNamesRemotely: false))
            let localError = await #expect(throws: TransportError.self) { try await transport.data(for: local) }
            #expect(localError?.category == .dnsFailure, "\(String(describing: localError))")
        }
    }

    @Test(arguments: [false, true])
    func aRefusedConnectIsAProxyFailureNamingTheProxy(tunnelsHTTP: Bool) async throws {
        let refusing = try ExternalServers.require(ExternalServers.refusingProxyURL, "PARLEY_REFUSING_PROXY_URL")
        var proxy = try Self.proxy(refusing)
        proxy.tunnelsEveryRequest = tunnelsHTTP
        let url =
            tunnelsHTTP
            ? httpbin + "/get" : try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        try await withTransport(.with { $0.tls.caFile = ExternalServers.testCA }) { transport in
            var request = try TransportRequest(method: .get, url: url)
            request.options.proxy = .proxy(proxy)
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .proxyFailure, "\(String(describing: error))")
            #expect(error?.message.contains(refusing) == true, "\(String(describing: error?.message))")
            #expect(error?.message.contains("403") == true)
            #expect(error?.mayHaveReachedServer == false)
        }
    }

    @Test(arguments: [false, true])
    func aProxyThatWantsCredentialsFailsWithProxyAuthenticationRequired(https: Bool) async throws {
        let authURL = try ExternalServers.require(ExternalServers.authProxyURL, "PARLEY_AUTH_PROXY_URL")
        let user = try ExternalServers.require(ExternalServers.authProxyUser, "PARLEY_AUTH_PROXY_USER")
        let password = try ExternalServers.require(ExternalServers.authProxyPassword, "PARLEY_AUTH_PROXY_PASSWORD")
        let url =
            https
            ? try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL") + "/small.bin"
            : httpbin + "/get"
        let store = LogCapture()
        let configuration = CurlTransport.Configuration.with {
            $0.tls.caFile = ExternalServers.testCA
            $0.logger = store.logger(level: .trace)
        }
        try await withTransport(configuration) { transport in
            var proxy = try Self.proxy(authURL)
            // Wrong credentials only through CONNECT: tinyproxy answers them with 401, which for a
            // forwarded request cannot be told from the server's own.
            let attempts = https ? [nil, HTTPCredentials.basic(user: user, password: "wrong-\(password)")] : [nil]
            for credentials in attempts {
                proxy.credentials = credentials
                var request = try TransportRequest(method: .get, url: url)
                request.options.proxy = .proxy(proxy)
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .proxyAuthenticationRequired, "\(String(describing: error))")
                #expect(error?.message.contains(authURL) == true, "\(String(describing: error?.message))")
                #expect(error?.message.contains(password) == false)
                #expect(error?.description.contains(password) == false)
            }
            proxy.credentials = .basic(user: user, password: password)
            var request = try TransportRequest(method: .get, url: url)
            request.options.proxy = .proxy(proxy)
            #expect(try await transport.data(for: request).status == .ok)
            #expect(request.curlCommand().contains(password) == false)
        }
        #expect(!store.messages.joined(separator: "\n").contains(password))
    }

    @Test func anUnreachableProxyIsARefusedConnectionNamingIt() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let port = closed.port
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: httpbin + "/get")
            request.options.proxy = .proxy(.http(host: "127.0.0.1", port: port))
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .connectionRefused, "\(String(describing: error))")
            #expect(error?.message.contains("proxy http://127.0.0.1:\(port)") == true, "\(String(describing: error))")
        }
    }

    @Test func hostsOnTheBypassListGoDirectly() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let port = closed.port
        try await withTransport { transport in
            var proxy = Proxy.http(host: "127.0.0.1", port: port)
            proxy.bypass = ["127.0.0.1"]
            var request = try TransportRequest(method: .get, url: httpbin + "/get")
            request.options.proxy = .proxy(proxy)
            #expect(try await transport.data(for: request).status == .ok)
        }
    }
}

/// The proxy variables of the environment, in a child process (`parley-fetch`), since they
/// would apply to every test of this one.
@Suite(.enabled(if: ExternalServers.proxiesAvailable, "the test proxies are not running: use `make test`"))
struct EnvironmentProxyTests {
    /// Runs parley-fetch on httpbin's `/headers?show_env=1` with `environment`, and returns
    /// whether the request went through the proxy (its `Via` field).
    private func wentThroughProxy(environment: [String: String], arguments: [String] = []) async throws -> Bool {
        let httpbin = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-proxy-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try await ChildProcess.launch(
            try ChildProcess.siblingExecutable("parley-fetch"),
            arguments: [httpbin + "/headers?show_env=1", "--output", output, "--quiet", "--no-input"] + arguments,
            environment: environment)
        try #require(child.status == 0, "parley-fetch failed: \(child.output)")
        return try String(contentsOfFile: output, encoding: .utf8).contains("tinyproxy")
    }

    @Test func honoursHTTPProxyAndNoProxyAndCanIgnoreThem() async throws {
        let proxy = try ExternalServers.require(ExternalServers.proxyURL, "PARLEY_PROXY_URL")
        #expect(try await wentThroughProxy(environment: ["http_proxy": proxy, "no_proxy": ""]))
        #expect(try await wentThroughProxy(environment: ["ALL_PROXY": proxy, "no_proxy": ""]))
        #expect(try await !wentThroughProxy(environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"]))
        #expect(
            try await !wentThroughProxy(environment: ["http_proxy": proxy, "no_proxy": ""], arguments: ["--noproxy"]))
    }
}

/// A loopback port bound but not listening, held until ``close()``: a connection to it is
/// refused, and no other test can take the port meanwhile.
private struct ClosedPort {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(bound == 0, "could not bind a loopback port")
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
