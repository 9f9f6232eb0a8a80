import Foundation
import MockBackend
import Transport
import TransportCurl

/// Runs `body` with a mock server and a transport of its own (so its first request opens a
/// new connection), shutting both down afterwards.
func withServerAndTransport<T: Sendable>(
    _ body: (MockServer, CurlTransport) async throws -> T
) async throws -> T {
    try await MockServer.withRunning { server in
        let transport = try CurlTransport()
        do {
            let result = try await body(server, transport)
            await transport.shutdown()
            return result
        } catch {
            await transport.shutdown()
            throw error
        }
    }
}

/// A JSON document's object.
func object(_ data: Data) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
}
