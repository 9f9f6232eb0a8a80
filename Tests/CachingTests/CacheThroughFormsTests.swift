import Caching
import Forms
import Foundation
import HTTPTypes
import MockBackend
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// The cache behind a Forms client: a lifetime per form, and the cached answer first, then
/// the network's.
@Suite struct CacheThroughFormsTests {
    struct Screen: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    /// A resource that sends no cache headers but an `ETag`.
    struct Cities: RequestFormable {
        var key: String
        var lifetime: Duration?
        var path: String { "/cache" }
        var parameters: Parameters { ["key": key, "etag": "v1"] }
        func configure(_ client: inout ClientConfiguration) {
            if let lifetime { client.userInfo.cacheLifetime = lifetime }
        }
    }

    func client(_ server: MockServer, _ curl: CurlTransport) -> (ClientConfiguration, HTTPCache) {
        let cache = HTTPCache()
        var configuration = ClientConfiguration(transport: curl, baseURL: server.baseURL)
        configuration.middleware = [cache]
        return (configuration, cache)
    }

    @Test func aFormSetsTheLifetimeOfItsOwnAnswers() async throws {
        try await withServerAndTransport { server, curl in
            let (configuration, _) = client(server, curl)
            let screen = Screen(clientConfiguration: configuration)
            let kept = Cities(key: "kept", lifetime: .seconds(60))
            _ = try await screen.request(kept).value
            let second = try await screen.request(kept).value
            #expect(CacheStatus(second.head) == .hit)
            let plain = Cities(key: "plain", lifetime: nil)
            _ = try await screen.request(plain).value
            _ = try await screen.request(plain).value
            let paths = server.receivedRequests().map(\.path)
            #expect(paths.filter { $0.contains("key=kept") }.count == 1, "the kept form's second answer was a hit")
            #expect(paths.filter { $0.contains("key=plain") }.count == 2)
        }
    }

    @Test func theCachedAnswerComesFirstThenTheNetworks() async throws {
        try await withServerAndTransport { server, curl in
            let (configuration, _) = client(server, curl)
            let screen = Screen(clientConfiguration: configuration)
            let form = Cities(key: "twice", lifetime: .seconds(60))
            _ = try await screen.request(form).value  // stores it

            let statuses = LockedRecorder<CacheStatus?>()
            let handle = screen.request(form, options: CallOptions(deliversCachedFirst: true))
                .success { statuses.append(CacheStatus($0.head)) }
            let first = try await handle.value
            #expect(CacheStatus(first.head) == .hit)
            try await waitUntil { statuses.all.count == 2 }
            #expect(statuses.all == [.hit, .revalidated], "the stored answer, then the server's (a 304)")
            let sent = server.receivedRequests().filter { $0.path.contains("key=twice") }
            #expect(sent.count == 2)
            #expect(sent.last?.headerFields[.ifNoneMatch] != nil, "the second run revalidated")
        }
    }

    @Test func withNothingStoredItIsAnOrdinaryRequest() async throws {
        try await withServerAndTransport { server, curl in
            let (configuration, _) = client(server, curl)
            let calls = PThreadMutex(0)
            let handle = Screen(clientConfiguration: configuration)
                .request(Cities(key: "empty", lifetime: nil), options: CallOptions(deliversCachedFirst: true))
                .success { _ in calls.withLock { $0 += 1 } }
            let response = try await handle.value
            #expect(CacheStatus(response.head) == .miss)
            try await Task.sleep(for: .milliseconds(200))
            #expect(calls.withLock { $0 } == 1)
            #expect(server.receivedRequests().count == 1)
        }
    }
}
