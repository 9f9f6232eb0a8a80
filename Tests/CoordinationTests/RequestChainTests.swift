import Coordination
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

/// Chains against the mock server: each step built from the value of the one before.
@Suite struct RequestChainTests {
    /// Logs in at the mock server and returns the token.
    func logIn(_ server: MockServer, through transport: any HTTPTransport, startImmediately: Bool = true)
        -> DataRequest<String>
    {
        DataRequest(startImmediately: startImmediately) { _ in
            let response = try await transport.data(
                for: try TransportRequest(method: .post, url: server.url("/auth/login")))
            let document = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            let data = document?["data"] as? [String: Any]
            guard let token = data?["token"] as? String else { throw StatusError(status: response.status.code) }
            return .init(value: token, response: nil)
        }
    }

    /// Records how many times each step was built.
    final class Steps: Sendable {
        private let built = PThreadMutex<[String]>([])
        private let handles = PThreadMutex<[DataRequest<String>]>([])

        func record(_ name: String, _ handle: DataRequest<String>) -> DataRequest<String> {
            built.withLock { $0.append(name) }
            handles.withLock { $0.append(handle) }
            return handle
        }

        var names: [String] { built.withLock { $0 } }
        var last: DataRequest<String>? { handles.withLock { $0.last } }
    }

    @Test func aStepUsesTheValueOfTheOneBefore() async throws {
        try await withServerAndTransport { server, counting in
            let profile = logIn(server, through: counting)
                .then { token in
                    fetch(
                        server.url("/auth/protected/profile"), through: counting,
                        headers: ["Authorization": "Bearer \(token)"])
                }
            let body = try await profile.value
            let document = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            #expect(document?["code"] as? Int == 200)
            #expect(server.receivedRequests().map(\.path) == ["/auth/login", "/auth/protected/profile"])
            #expect(await profile.response?.url == server.url("/auth/protected/profile"), "the last step's response")
        }
    }

    @Test func aFailureStopsTheChainWithItsError() async throws {
        try await withServerAndTransport { server, counting in
            let steps = Steps()
            let chain = fetch(server.url("/echo"), through: counting)
                .then { _ in steps.record("second", fetch(server.url("/status/500"), through: counting)) }
                .then { _ in steps.record("third", fetch(server.url("/echo?third"), through: counting)) }
            let error = await #expect(throws: StatusError.self) { try await chain.value }
            #expect(error == StatusError(status: 500))
            #expect(steps.names == ["second"], "the step after the failure was never built")
            #expect(server.receivedRequests().map(\.path) == ["/echo", "/status/500"])
        }
    }

    @Test func anErrorThrownWhileBuildingAStepFailsTheChain() async throws {
        try await withServerAndTransport { server, counting in
            let chain = fetch(server.url("/echo"), through: counting)
                .then { _ -> DataRequest<String> in throw StatusError(status: 418) }
            #expect(await chain.result.failure as? StatusError == StatusError(status: 418))
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheChainCancelsTheStepInFlightAndStartsNoOther() async throws {
        try await withServerAndTransport { server, counting in
            let steps = Steps()
            let chain = fetch(server.url("/echo"), through: counting)
                // Ten minutes: the test's time limit fails it long before, should the cancel not stop it.
                .then { _ in steps.record("slow", fetch(server.url("/delay/600000"), through: counting)) }
                .then { _ in steps.record("after", fetch(server.url("/echo?after"), through: counting)) }
            try await waitUntil { server.receivedRequests().count == 2 }
            chain.cancel()
            let error = await #expect(throws: TransportError.self) { try await chain.value }
            #expect(error?.category == .cancelled)
            let slow = try #require(steps.last)
            #expect((await slow.result.failure as? TransportError)?.category == .cancelled)
            #expect(steps.names == ["slow"])
            try await waitUntil { counting.inFlight == 0 }
            #expect(counting.failures == [.cancelled])
            #expect(server.receivedRequests().map(\.path) == ["/echo", "/delay/600000"])
        }
    }

    @Test func cancellingTheChainDuringItsFirstStepCancelsThatStep() async throws {
        try await withServerAndTransport { server, counting in
            let steps = Steps()
            let first = fetch(server.url("/delay/10000"), through: counting)
            let chain = first.then { _ in steps.record("second", fetch(server.url("/echo"), through: counting)) }
            try await waitUntil { server.receivedRequests().count == 1 }
            chain.cancel()
            #expect((await chain.result.failure as? TransportError)?.category == .cancelled)
            #expect((await first.result.failure as? TransportError)?.category == .cancelled)
            #expect(steps.names.isEmpty)
        }
    }

    @Test func aChainOfADeferredHandleStartsWithIt() async throws {
        try await withServerAndTransport { server, counting in
            let login = logIn(server, through: counting, startImmediately: false)
            let chain = login.then { token in
                fetch(server.url("/auth/protected"), through: counting, headers: ["Authorization": "Bearer \(token)"])
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.receivedRequests().isEmpty, "nothing runs before the start")
            login.start()
            _ = try await chain.value
            #expect(server.receivedRequests().map(\.path) == ["/auth/login", "/auth/protected"])
        }
    }

    @Test func theChainPassesOnTheEventsOfItsSteps() async throws {
        try await withServerAndTransport { server, counting in
            let chain = fetch(server.url("/echo?first"), through: counting, startImmediately: false)
                .then { _ in fetch(server.url("/echo?second"), through: counting) }
            let urls = LockedRecorder<String>()
            chain.observe { event in
                if case .transfer(.metrics) = event { urls.append("metrics") }
            }
            chain.start()
            _ = try await chain.value
            #expect(urls.all == ["metrics", "metrics"], "one transfer's metrics per step")
        }
    }

    @Test func reloadingTheChainRunsEveryStepAgain() async throws {
        try await withServerAndTransport { server, counting in
            let login = logIn(server, through: counting)
            let chain = login.then { token in
                fetch(server.url("/auth/protected"), through: counting, headers: ["Authorization": "Bearer \(token)"])
            }
            _ = try await chain.value
            chain.reload()
            _ = try await chain.value
            #expect(
                server.receivedRequests().map(\.path) == [
                    "/auth/login", "/auth/protected", "/auth/login", "/auth/protected",
                ])
        }
    }
}
