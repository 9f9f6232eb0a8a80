import Foundation
import HTTPTypes
import Logging
import Testing
import Transport
import TransportCurl

/// Requests over a Unix domain socket: nginx listens on one beside its TCP ports.
@Suite(.enabled(if: ExternalServers.nginxSocketAvailable, "nginx's Unix socket is missing: use `make test`"))
struct UnixSocketTests {
    let socket: String

    init() throws {
        socket = try ExternalServers.require(ExternalServers.nginxSocket, "PARLEY_NGINX_SOCKET")
    }

    @Test func sendsOverTheSocketAndReusesTheConnection() async throws {
        try await withTransport { transport in
            var metrics: [TransferMetrics] = []
            for _ in 0..<2 {
                // No server listens on this TCP port: the response can only come over the socket.
                var request = try TransportRequest(method: .get, url: "http://localhost:1/small.bin")
                request.options.unixSocketPath = socket
                let response = try await transport.data(for: request)
                #expect(response.status == .ok)
                #expect(response.body.count == 200)
                metrics.append(try #require(response.metrics))
            }
            #expect(metrics[0].reusedConnection == false)
            #expect(metrics[1].reusedConnection == true)
        }
    }

    @Test func aTransportWideSocketAppliesToEveryRequestUnlessOneSaysTCP() async throws {
        let nginx = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        try await withTransport(.with { $0.defaultOptions.unixSocketPath = socket }) { transport in
            let overSocket = try await transport.data(
                for: TransportRequest(method: .post, url: "http://localhost:1/upload", body: .string("hello")))
            #expect(String(decoding: overSocket.body, as: UTF8.self) == "ok\n")
            var overTCP = try TransportRequest(method: .get, url: nginx + "/small.bin")
            overTCP.options.unixSocketPath = nil
            #expect(try await transport.data(for: overTCP).status == .ok)
        }
    }

    @Test func aMissingSocketFailsAsARefusedConnection() async throws {
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: "http://localhost/small.bin")
            request.options.unixSocketPath = socket + ".missing"
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .connectionRefused, "\(String(describing: error))")
            #expect(error?.mayHaveReachedServer == false)
            #expect(error?.message.contains(socket + ".missing") == true, "\(String(describing: error?.message))")
        }
    }
}
