import Forms
import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport
import TransportTesting

/// A handle whose events someone observes hands its transfer an event handler in the request's
/// options; a transport or a middleware that keeps requests after they end (this test double
/// records every request it is sent) must not keep the handle's core, its client and the
/// transport alive through that handler.
///
/// Checked to fail with the handler holding the core strongly: the transport then stays alive
/// for good, in a cycle through the recorded request, for an observed handle (with or without
/// other handlers); a handle with handlers but no observer was freed either way.
@Suite struct KeptRequestTests {
    struct Client: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    struct Status: RequestFormable {
        let path = "/status"
    }

    enum Watch: CaseIterable {
        /// `observe` alone.
        case observer
        /// What a mask registers: a start hook, an observer, a completion handler, a stop hook.
        case everyKind
        /// A completion handler, no observer.
        case completion
    }

    @Test(arguments: Watch.allCases, [HTTPResponse.Status.ok, .notFound])
    func aHandleDoesNotOutliveItsRunWhenTheTransportKeepsTheRequest(watch: Watch, status: HTTPResponse.Status)
        async throws
    {
        weak var keptTransport: StubTransport?
        do {
            let transport = StubTransport(always: .init(status: status, body: Data()))
            keptTransport = transport
            let client = Client(
                clientConfiguration: ClientConfiguration(transport: transport, baseURL: "https://example.com"))
            let handle = client.request(Status())
            switch watch {
            case .observer:
                handle.observe { _ in }
            case .everyKind:
                handle.onStart {}
                handle.observe { _ in }
                handle.completion { _ in }
                handle.onStop { _ in }
            case .completion:
                handle.completion { _ in }
            }
            _ = await handle.result
            #expect(transport.requests.count == 1)
            #expect((transport.requests.first?.options.eventHandler != nil) == (watch != .completion))
        }
        // The task a handler launched may still hold the core for a moment after the await.
        let deadline = ContinuousClock.now + .seconds(5)
        while keptTransport != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(keptTransport == nil, "the handle's core, its client and the transport are still alive")
    }

    /// A download's pipeline always hands its transfer an event handler (for the last hop's
    /// URL and metrics), so the same holds for every download handle.
    ///
    /// Checked to fail with that handler calling the handle's event sink, which holds the core
    /// strongly, instead of ``RequestEventSink/sender``.
    @Test func aDownloadHandleDoesNotOutliveItsRunWhenTheTransportKeepsTheRequest() async throws {
        weak var keptTransport: StubTransport?
        try await withTemporaryFolder { folder in
            let transport = StubTransport(always: .init(body: Data("downloaded".utf8)))
            keptTransport = transport
            let client = Client(
                clientConfiguration: ClientConfiguration(transport: transport, baseURL: "https://example.com"))
            let destination = URL(fileURLWithPath: folder).appendingPathComponent("file")
            _ = try await client.download(PatternDownload(count: 10, destination: destination)).value
            #expect(try Data(contentsOf: destination) == Data("downloaded".utf8))
            #expect(transport.requests.first?.options.eventHandler != nil)
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while keptTransport != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(keptTransport == nil, "the download's core, its client and the transport are still alive")
    }
}
