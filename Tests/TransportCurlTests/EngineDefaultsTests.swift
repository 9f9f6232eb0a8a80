import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport

@testable import TransportCurl

/// `CurlTransport.Configuration.defaultOptions` governs every option a request leaves unset,
/// and a request's own options win over it.
@Suite struct EngineDefaultsTests {
    /// A 200 response whose gzip body is small on the wire and `decodedSize` zero bytes decoded.
    static func gzipResponse(decodedSize: Int) throws -> [UInt8] {
        var encoder = try GzipEncoder(level: 9)
        var body = Data()
        let chunk = Data(count: 1 << 20)
        var remaining = decodedSize
        while remaining > 0 {
            body.append(try encoder.compress(chunk.prefix(remaining)))
            remaining -= min(remaining, chunk.count)
        }
        body.append(try encoder.finish())
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Encoding: gzip\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }

    @Test func anEngineWideBodyLimitRejectsAGzipBodyThatDecodesPastIt() async throws {
        let response = try Self.gzipResponse(decodedSize: 16 << 20)
        #expect(response.count < 1 << 20)
        try await ScriptedSocketServer.withRunning(.respond(response, thenClose: true)) { server in
            try await withTransport(.with { $0.defaultOptions.maximumBodySize = 1 << 20 }) { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .responseTooLarge)
                #expect(error?.message.contains("\(1 << 20) bytes") == true)
            }
        }
    }

    @Test func anEngineWideBodyLimitRejectsAnOversizedContentLength() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.defaultOptions.maximumBodySize = 1000 }) { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/5000")))
                }
                #expect(error?.category == .responseTooLarge)
            }
        }
    }

    @Test func anEngineWideStallTimeoutStopsAServerThatStopsSending() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.defaultOptions.stallTimeout = .seconds(1) }) { transport in
                var request = try TransportRequest(method: .get, url: server.url("/stall?after=100"))
                // A generous bound of the request's own: without the engine's stall timeout
                // the transfer would run into it and fail as .deadlineExceeded instead.
                request.options.deadline = .seconds(20)
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .stalledTransfer)
                #expect(error?.message.contains("1.0 seconds") == true)
            }
        }
    }

    @Test func anEngineWideStallTimeoutAppliesToAStreamedBody() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.defaultOptions.stallTimeout = .seconds(1) }) { transport in
                var request = try TransportRequest(method: .get, url: server.url("/stall?after=100"))
                request.options.deadline = .seconds(20)
                // On a loaded machine the stall can fire before the head reaches this task, so
                // it may surface from `send` as well as from the body.
                let error = await #expect(throws: TransportError.self) {
                    let response = try await transport.send(request)
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
                #expect(error?.category == .stalledTransfer)
            }
        }
    }

    @Test func aRequestsOwnBodyLimitBeatsTheEngineDefault() async throws {
        let response = try Self.gzipResponse(decodedSize: 16 << 20)
        try await ScriptedSocketServer.withRunning(.respond(response, thenClose: true)) { server in
            try await withTransport(.with { $0.defaultOptions.maximumBodySize = 1 << 20 }) { transport in
                var request = try TransportRequest(method: .get, url: server.baseURL + "/")
                request.options.maximumBodySize = 32 << 20
                let body = try await transport.data(for: request).body
                #expect(body.count == 16 << 20)
            }
        }
    }

    @Test func aRequestsDeadlineOfNilBeatsAnEngineDeadline() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.defaultOptions.deadline = .milliseconds(300) }) { transport in
                let bounded = try TransportRequest(method: .get, url: server.url("/delay/1500"))
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: bounded) }
                #expect(error?.category == .deadlineExceeded)

                var unbounded = bounded
                unbounded.options.deadline = nil
                #expect(try await transport.data(for: unbounded).status == .ok)
            }
        }
    }

    @Test func optionsTheRequestLeavesUnsetStillComeFromTheEngine() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.defaultOptions.redirects = .none }) { transport in
                var request = try TransportRequest(method: .get, url: server.url("/redirect/1"))
                request.options.maximumBodySize = 1 << 20
                #expect(try await transport.data(for: request).status == .found)

                request.options.redirects = .follow()
                #expect(try await transport.data(for: request).status == .ok)
            }
        }
    }
}
