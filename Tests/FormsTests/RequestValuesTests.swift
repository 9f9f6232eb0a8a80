import Caching
import Forms
import Foundation
import Mapping
import MockBackend
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// A handle's values as an asynchronous sequence: the cached answer then the network's, a
/// reload, polling, and a failed run.
@Suite struct RequestValuesTests {
    struct Echo: RequestFormable {
        var path: String { "/echo" }
    }

    /// A resource with an `ETag`, kept by the cache for a minute.
    struct Cities: RequestFormable {
        var key: String
        var path: String { "/cache" }
        var parameters: Parameters { ["key": key, "etag": "v1"] }
        func configure(_ client: inout ClientConfiguration) { client.userInfo.cacheLifetime = .seconds(60) }
    }

    /// The echo's method, a decoded model.
    struct EchoedMethod: Decodable, Sendable, Equatable {
        let method: String
    }

    @Test func theCachedAnswerThenTheNetworksThenTheEnd() async throws {
        try await withServerAndTransport { server, curl in
            // Given a client with a cache that holds the answer
            var configuration = ClientConfiguration(transport: curl, baseURL: server.baseURL)
            configuration.middleware = [HTTPCache()]
            let screen = Screen(clientConfiguration: configuration)
            _ = try await screen.request(Cities(key: "values")).value

            // When a cached-first request's decoded values are read to the end
            let handle = screen.request(Cities(key: "values"), options: CallOptions(deliversCachedFirst: true))
            var statuses: [CacheStatus?] = []
            for try await decoded in handle.json().withResponse().values {
                statuses.append(CacheStatus(decoded.response.head))
            }

            // Then there were two, the stored one and the server's, and the sequence ended
            #expect(statuses == [.hit, .revalidated])
            #expect(server.requestCount(for: "/cache") == 2)
        }
    }

    @Test func aReloadYieldsAnotherValue() async throws {
        try await withServerAndTransport { server, curl in
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            let handle = screen.request(Echo())
            let decoded = handle.decode(EchoedMethod.self)
            var values = decoded.values.makeAsyncIterator()

            let first = try await values.next()
            handle.reload()
            let second = try await values.next()
            let third = try await values.next()
            #expect(first == EchoedMethod(method: "GET"))
            #expect(second == EchoedMethod(method: "GET"))
            #expect(third == nil, "no run is coming")
            #expect(server.requestCount(for: "/echo") == 2)
        }
    }

    @Test func pollingRunsAgainUntilTheConsumerLeaves() async throws {
        try await withServerAndTransport { server, curl in
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            let handle = screen.request(Echo()).decode(EchoedMethod.self)
            var taken = 0
            for try await value in handle.poll(every: .milliseconds(20)) {
                #expect(value.method == "GET")
                taken += 1
                if taken == 3 { break }
            }
            #expect(taken == 3)
            // Nothing is sent once the consumer has left.
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requestCount(for: "/echo") == 3)
        }
    }

    @Test func pollingStopsWhenTheConsumingTaskIsCancelled() async throws {
        try await withServerAndTransport { server, curl in
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            let handle = screen.request(Echo())
            let consumer = Task {
                var taken = 0
                for try await _ in handle.poll(every: .milliseconds(10)) { taken += 1 }
                return taken
            }
            try await waitUntil { server.requestCount(for: "/echo") >= 3 }
            consumer.cancel()
            let taken = try await consumer.value
            let sent = server.requestCount(for: "/echo")
            try await Task.sleep(for: .milliseconds(200))
            #expect(taken >= 2)
            #expect(server.requestCount(for: "/echo") == sent, "no request after the consumer stopped")
        }
    }

    @Test func aFailedRunEndsTheSequenceByThrowing() async throws {
        try await withServerAndTransport { server, curl in
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            struct Missing: RequestFormable { var path: String { "/status/404" } }
            var values = screen.request(Missing()).decode(EchoedMethod.self).poll(every: .milliseconds(10))
                .makeAsyncIterator()
            var thrown: (any Error)?
            do { _ = try await values.next() } catch { thrown = error }
            #expect(thrown is MappingError)
            let after = try await values.next()
            #expect(after == nil, "the sequence has ended")
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requestCount(for: "/status/404") == 1, "a failure stops the polling")
        }
    }
}
