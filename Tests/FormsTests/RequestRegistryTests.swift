import Downloads
import Forms
import Foundation
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// Cancelling a client's requests by kind (`ClientConfiguration.requests`, a `RequestRegistry`)
/// on the real engine: requests held by the mock server's `/delay` route are in flight until
/// cancelled.
///
/// Checked to fail: with `RequestPipeline.run` not registering its request, every cancel
/// reaches nothing and the held requests never end (the waits time out); with the registry's
/// `cancel(where:)` ignoring its predicate, the method-and-URL and predicate tests cancel the
/// requests they must leave alone; with `DownloadPipeline.run` not registering, the download
/// is not cancelled.
@Suite struct RequestRegistryTests {
    /// A route the server holds for ten minutes; `tag` tells requests apart by URL.
    struct Held: RequestFormable {
        var tag = "a"
        var path: String { "/delay/600000" }
        var parameters: Parameters { ["tag": tag] }
    }

    /// A route that answers at once.
    struct Quick: RequestFormable {
        var path: String { "/status/200" }
    }

    /// Runs `body` with two clients of one engine against the mock server: each configuration
    /// has a registry of its own.
    private func withClients(_ body: (MockServer, Screen, Screen) async throws -> Void) async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            let first = Screen(clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))
            let other = Screen(clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))
            do {
                try await body(server, first, other)
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
        }
    }

    /// Starts a handle for `form` that records each failure: whether it is a cancellation.
    private func started(
        _ screen: Screen, _ form: Held, failures: LockedRecorder<Bool>
    ) -> DataRequest<DataResponse> {
        screen.request(form).failure { failures.append(($0.underlying as? TransportError)?.category == .cancelled) }
    }

    @Test func cancelAllEndsEveryRequestOfTheClientOnceAndNoOtherClients() async throws {
        try await withClients { _, screen, other in
            let failures = LockedRecorder<Bool>()
            let handles = (0..<4).map { _ in started(screen, Held(), failures: failures) }
            let untouched = other.request(Held()).failure { _ in }
            let registry = try #require(screen.clientConfiguration?.requests)
            try await waitUntil { registry.count == 4 }
            try await waitUntil { other.clientConfiguration?.requests.count == 1 }

            #expect(screen.cancelAllRequests() == 4)

            for handle in handles {
                let failure = try #require(await handle.result.failure as? TransportError)
                #expect(failure.category == .cancelled)
            }
            try await waitUntil { failures.all.count == 4 }
            #expect(failures.all == Array(repeating: true, count: 4))
            #expect(registry.count == 0)
            // The other client's request is still held by the server.
            #expect(other.clientConfiguration?.requests.count == 1)
            untouched.cancel()
            _ = await untouched.result
        }
    }

    @Test func cancellingAMethodAndURLCancelsOnlyThoseRequests() async throws {
        try await withClients { server, screen, _ in
            let failures = LockedRecorder<Bool>()
            let a = [
                started(screen, Held(tag: "a"), failures: failures),
                started(screen, Held(tag: "a"), failures: failures),
            ]
            let b = started(screen, Held(tag: "b"), failures: failures)
            let registry = try #require(screen.clientConfiguration?.requests)
            try await waitUntil { registry.count == 3 }

            let url = server.baseURL + "/delay/600000?tag=a"
            #expect(screen.cancelRequests(method: .post, url: url) == 0)
            #expect(screen.cancelRequests(method: .get, url: url) == 2)

            for handle in a { #expect((await handle.result.failure as? TransportError)?.category == .cancelled) }
            #expect(registry.count == 1)
            #expect(failures.all.count == 2)
            b.cancel()
            _ = await b.result
        }
    }

    @Test func aPredicateCancelsTheRequestsItPicks() async throws {
        try await withClients { _, screen, _ in
            let failures = LockedRecorder<Bool>()
            let b = started(screen, Held(tag: "b"), failures: failures)
            let c = started(screen, Held(tag: "c"), failures: failures)
            let registry = try #require(screen.clientConfiguration?.requests)
            try await waitUntil { registry.count == 2 }

            #expect(
                screen.cancelRequests { $0.url.hasSuffix("tag=c") && $0.head.path?.hasPrefix("/delay") == true } == 1)

            #expect((await c.result.failure as? TransportError)?.category == .cancelled)
            #expect(registry.count == 1)
            b.cancel()
            _ = await b.result
        }
    }

    @Test func aRequestSentAfterTheCancelIsNotAffected() async throws {
        try await withClients { _, screen, _ in
            let registry = try #require(screen.clientConfiguration?.requests)
            let held = screen.request(Held()).failure { _ in }
            try await waitUntil { registry.count == 1 }
            #expect(screen.cancelAllRequests() == 1)
            _ = await held.result

            let after = try await screen.request(Quick()).value
            #expect(after.status == .ok)
            #expect(registry.count == 0)
        }
    }

    @Test func aRequestAwaitedWithoutAHandleThrowsTheCancellation() async throws {
        try await withClients { _, screen, _ in
            let registry = try #require(screen.clientConfiguration?.requests)
            let call = Task { try await screen.data(for: Held()) }
            try await waitUntil { registry.count == 1 }
            #expect(screen.cancelRequests { $0.method == .get } == 1)
            let failure = try #require(await call.result.failure as? TransportError)
            #expect(failure.category == .cancelled)
            #expect(registry.count == 0)
        }
    }

    @Test func aDownloadCancelledByKindKeepsItsPartial() async throws {
        try await withTemporaryFolder { path in
            try await withClients { _, screen, _ in
                let destination = URL(fileURLWithPath: path).appendingPathComponent("big.bin")
                let download = screen.download(
                    PatternDownload(count: 4 << 20, destination: destination, query: ["chunk-delay": 20]))
                var cancelled = false
                for await event in download.events {
                    if !cancelled, case .transfer(.downloadProgress(let progress)) = event,
                        progress.completed >= 128 << 10
                    {
                        cancelled = true
                        #expect(screen.cancelAllRequests() == 1)
                    }
                }
                let failure = try #require(await download.result.failure as? TransportError)
                #expect(failure.category == .cancelled)
                #expect(failure.message.contains("kept in"))
                let kept =
                    (try? FileManager.default.attributesOfItem(atPath: destination.path + ".partial")[.size] as? Int)
                    ?? 0
                #expect(kept >= 128 << 10)
            }
        }
    }
}
