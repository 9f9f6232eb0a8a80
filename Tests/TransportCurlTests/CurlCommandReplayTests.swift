import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// A request's `curl` command, run with `/usr/bin/curl`, makes the server see the same request
/// as the engine sending it.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "/usr/bin/curl is missing"))
struct CurlCommandReplayTests {
    /// What the mock server saw from the engine and from curl for `request`.
    private func bothEchoes(_ request: TransportRequest, transport: CurlTransport) async throws -> (Echo, Echo) {
        let fromEngine = try Echo(try await transport.data(for: request).body)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-curl-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = request.curlCommand(redactsCredentials: false) + " --silent --show-error"
        let child = try await ChildProcess.launch("/bin/bash", arguments: ["-c", command], standardOutput: output)
        try #require(child.status == 0, "curl failed: \(child.output)\n\(command)")
        let fromCurl = try Echo(try Data(contentsOf: URL(fileURLWithPath: output)))
        return (fromEngine, fromCurl)
    }

    private func expectSame(_ engine: Echo, _ curl: Echo, headers: [String]) {
        #expect(curl.method == engine.method)
        #expect(curl.path == engine.path)
        #expect(curl.query == engine.query)
        #expect(curl.bodyLength == engine.bodyLength)
        #expect(curl.bodySHA256 == engine.bodySHA256)
        for name in headers {
            #expect(curl.header(name) == engine.header(name), "\(name)")
        }
    }

    @Test func replaysMethodsHeadersAndBodiesFromMemory() async throws {
        let bodies: [(String, Data)] = [
            ("text", Data("it's a \"body\"\nwith $HOME and `ticks`".utf8)),
            ("binary", Data([0, 1, 2, 0x27, 0x5C, 0x25, 0xFF, 0x0A, 0x40])),
            ("at sign", Data("@not-a-file".utf8)),
        ]
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                for (method, (label, body)) in zip(["POST", "PUT", "PATCH"], bodies) {
                    let request = try TransportRequest(
                        method: try #require(.init(method)),
                        url: server.url("/echo?city=St%20John's&a=1&a=2"),
                        headers: ["Content-Type": "application/x-thing", "X-Quote": "it's \"quoted\"", "X-Empty": ""],
                        body: .bytes(body))
                    let (engine, curl) = try await bothEchoes(request, transport: transport)
                    #expect(engine.bodyLength == body.count, "\(label)")
                    expectSame(engine, curl, headers: ["Content-Type", "X-Quote", "X-Empty", "Content-Length"])
                }
            }
        }
    }

    @Test func replaysAFileBodyAndCredentials() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley curl's body \(UUID()).bin")
        try Data((0..<5000).map { UInt8($0 % 256) }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                for body in [RequestBody.file(path: file.path), .file(path: file.path, offset: 100, length: 1000)] {
                    var request = try TransportRequest(method: .post, url: server.url("/echo"), body: body)
                    request.options.credentials = .basic(user: "ada", password: "s3'cret")
                    let (engine, curl) = try await bothEchoes(request, transport: transport)
                    expectSame(engine, curl, headers: ["Authorization", "Content-Type"])
                    #expect(engine.header("Authorization") != nil)
                }
            }
        }
    }

    @Test func replaysADeleteWithAnAuthorizationFieldAndADeadline() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(
                    method: .delete, url: server.url("/echo?id=42"), headers: ["Authorization": "Bearer abc"])
                // Long enough that a busy test run never reaches it: the test is about the
                // command carrying it (`--max-time`), not about the clock.
                request.options.deadline = .seconds(300)
                let (engine, curl) = try await bothEchoes(request, transport: transport)
                expectSame(engine, curl, headers: ["Authorization"])
            }
        }
    }
}
