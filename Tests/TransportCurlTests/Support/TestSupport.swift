import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import Testing
import Transport
import TransportCurl

/// Creates a transport for one test and shuts it down afterwards.
func withTransport<T>(
    _ configuration: CurlTransport.Configuration = CurlTransport.Configuration(),
    _ body: (CurlTransport) async throws -> T
) async throws -> T {
    let transport = try CurlTransport(configuration: configuration)
    do {
        let result = try await body(transport)
        await transport.shutdown()
        return result
    } catch {
        await transport.shutdown()
        throw error
    }
}

extension CurlTransport.Configuration {
    /// The default configuration with `change` applied.
    static func with(_ change: (inout Self) -> Void) -> Self {
        var configuration = Self()
        change(&configuration)
        return configuration
    }
}

/// The servers `make test` starts beside the in-process mock server.
///
/// Under `make test` (`PARLEY_REQUIRE_SERVERS=1`) a missing server is a failure, not a skip.
enum ExternalServers {
    static let environment = ProcessInfo.processInfo.environment

    static var nginxURL: String? { environment["PARLEY_NGINX_URL"] }
    static var nginxTLSURL: String? { environment["PARLEY_NGINX_TLS_URL"] }
    static var testCA: String? { environment["PARLEY_TEST_CA"] }
    static var nginxRoot: String? { environment["PARLEY_NGINX_ROOT"] }
    static var httpbinURL: String? { environment["PARLEY_HTTPBIN_URL"] }
    static var nginxSocket: String? { environment["PARLEY_NGINX_SOCKET"] }
    static var proxyURL: String? { environment["PARLEY_PROXY_URL"] }
    static var proxyLog: String? { environment["PARLEY_PROXY_LOG"] }
    static var authProxyURL: String? { environment["PARLEY_AUTH_PROXY_URL"] }
    static var authProxyUser: String? { environment["PARLEY_AUTH_PROXY_USER"] }
    static var authProxyPassword: String? { environment["PARLEY_AUTH_PROXY_PASSWORD"] }
    static var refusingProxyURL: String? { environment["PARLEY_REFUSING_PROXY_URL"] }
    static var socksURL: String? { environment["PARLEY_SOCKS_URL"] }

    /// Whether a missing server must fail the run.
    static var required: Bool { environment["PARLEY_REQUIRE_SERVERS"] == "1" }

    /// Whether nginx tests can run (or must, and will fail with a clear message).
    static var nginxAvailable: Bool { required || (nginxURL != nil && nginxTLSURL != nil && testCA != nil) }
    /// Whether httpbin tests can run (or must).
    static var httpbinAvailable: Bool { required || httpbinURL != nil }
    /// Whether the proxy tests can run (or must): the proxies, httpbin and nginx.
    static var proxiesAvailable: Bool { required || (proxyURL != nil && httpbinURL != nil && nginxTLSURL != nil) }
    /// Whether nginx's Unix domain socket can be used (or must).
    static var nginxSocketAvailable: Bool { required || nginxSocket != nil }

    /// The value of a server variable, or a test failure naming it.
    static func require(_ value: String?, _ name: String) throws -> String {
        try #require(value, "\(name) is not set: run the tests with `make test`, which starts nginx and httpbin")
    }
}

/// Decodes the mock server's `/echo` JSON.
struct Echo: Decodable {
    let method: String
    let path: String
    let query: [String: [String]]
    let headers: [String: [String]]
    let body: String?
    let bodyLength: Int
    let bodySHA256: String

    init(_ data: Data) throws {
        self = try JSONDecoder().decode(Echo.self, from: data)
    }

    func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
}

/// The mock server's deterministic body pattern (byte `i` is `i % 251`) as `Data`.
func pattern(_ range: Range<Int>) -> Data {
    Data(BytePattern.bytes(range))
}

/// The mock backend's business envelope, `{"code", "message", "data"}`, as the route tests read it.
struct Envelope<Payload: Decodable>: Decodable {
    var code: Int
    var message: String
    var data: Payload?

    init(_ body: Data) throws {
        self = try JSONDecoder().decode(Envelope.self, from: body)
    }
}
