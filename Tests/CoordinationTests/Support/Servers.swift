import Foundation
import HTTPTypes
import MockBackend
import ServerTestSupport
import Transport
import TransportCurl

/// Runs `body` with a mock server and a counting transport over a curl transport of its own,
/// shutting both down afterwards.
func withServerAndTransport<T: Sendable>(
    _ body: (MockServer, CountingTransport) async throws -> T
) async throws -> T {
    try await ServerTestSupport.withServerAndTransport { server, curl in
        try await body(server, CountingTransport(curl))
    }
}

/// A transport that counts what reaches it: the transfers in flight now, the most at once,
/// and how each one ended. Put it under the middleware under test to see what gets through.
final class CountingTransport: HTTPTransport {
    private struct State {
        var inFlight = 0
        var mostInFlight = 0
        var started = 0
        var failures: [TransportError.Category] = []
    }

    private let base: any HTTPTransport
    private let state = PThreadMutex(State())

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// The transfers in flight now.
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// The most transfers that were ever in flight at once.
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }
    /// How many transfers were started.
    var started: Int { state.withLock { $0.started } }
    /// The categories of the transfers that failed, in the order they failed.
    var failures: [TransportError.Category] { state.withLock { $0.failures } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await counting { try await base.send(request) }
    }

    func data(for request: TransportRequest) async throws -> DataResponse {
        try await counting { try await base.data(for: request) }
    }

    private func counting<T>(_ transfer: () async throws -> T) async throws -> T {
        state.withLock { state in
            state.inFlight += 1
            state.started += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
        }
        do {
            let result = try await transfer()
            state.withLock { $0.inFlight -= 1 }
            return result
        } catch {
            state.withLock { state in
                state.inFlight -= 1
                state.failures.append((error as? TransportError)?.category ?? .other)
            }
            throw error
        }
    }
}

/// A handle that fetches `url` through `transport` and fails on a status other than 2xx.
func fetch(
    _ url: String, through transport: any HTTPTransport, startImmediately: Bool = true,
    headers: KeyValuePairs<String, String> = [:]
) -> DataRequest<String> {
    DataRequest(startImmediately: startImmediately) { events in
        var request = try TransportRequest(method: .get, url: url, headers: headers)
        request.options.eventHandler = events.transferHandler
        let response = try await transport.data(for: request)
        guard (200..<300).contains(response.status.code) else { throw StatusError(status: response.status.code) }
        return .init(
            value: String(decoding: response.body, as: UTF8.self),
            response: ResponseInfo(head: response.head, url: response.url, metrics: response.metrics))
    }
}

/// A status a member of a test refuses.
struct StatusError: Error, Equatable {
    let status: Int
}

/// The paths the server received, in order.
func receivedPaths(_ server: MockServer) -> [String] {
    server.receivedRequests().map(\.path)
}
