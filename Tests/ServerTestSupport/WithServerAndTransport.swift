package import MockBackend
package import TransportCurl

/// Runs `body` with an in-process mock server and a `CurlTransport` of its own (so that its
/// first request opens a new connection), shutting the transport down afterwards, whether
/// `body` returns or throws, and then the server.
package func withServerAndTransport<T: Sendable>(
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
