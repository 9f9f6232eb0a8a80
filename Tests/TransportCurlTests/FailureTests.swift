import Foundation
import Glibc
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

/// Every ``TransportError`` category that can be provoked on loopback.
@Suite struct FailureTests {
    @Test func reportsARefusedConnectionAsNotReachingTheServer() async throws {
        // A port that was just free: bind, read the port, close.
        let port = try await ScriptedSocketServer.withRunning(.holdOpen) { server in server.port }
        try await withTransport { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.data(
                    for: TransportRequest(method: .post, url: "http://127.0.0.1:\(port)/", body: .string("x")))
            }
            #expect(error?.category == .connectionRefused)
            #expect(error?.mayHaveReachedServer == false)
            #expect(error?.curlCode == 7)
            #expect(error?.message.contains("127.0.0.1:\(port)") == true)
        }
    }

    @Test func reportsAConnectTimeout() async throws {
        let listener = try UnansweredListener()
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: "http://127.0.0.1:\(listener.port)/")
            request.options.connectTimeout = .milliseconds(500)
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .connectTimeout)
            #expect(error?.mayHaveReachedServer == false)
            #expect(error?.message.contains("connectTimeout") == true)
        }
    }

    @Test func reportsAStalledTransfer() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/stall?after=100"))
                request.options.stallTimeout = .seconds(1)
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .stalledTransfer)
                #expect(error?.message.contains("stallTimeout") == true)
            }
        }
    }

    @Test func reportsAServerThatNeverAnswersAsStalled() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.baseURL + "/")
                request.options.stallTimeout = .milliseconds(700)
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .stalledTransfer)
            }
        }
    }

    @Test func reportsAnExceededDeadline() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/delay/3000"))
                request.options.deadline = .milliseconds(400)
                // The server would answer after three seconds: an error at all means the deadline struck.
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .deadlineExceeded)
            }
        }
    }

    @Test func appliesTheDeadlineAcrossRedirects() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let target = server.url("/delay/700").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                var request = try TransportRequest(method: .get, url: server.url("/redirect-to?url=\(target)"))
                request.options.deadline = .milliseconds(500)
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .deadlineExceeded)
            }
        }
    }

    @Test func reportsAnEmptyReply() async throws {
        try await ScriptedSocketServer.withRunning(.closeImmediately) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .emptyReply)
                #expect(error?.mayHaveReachedServer == true)
            }
        }
    }

    @Test func reportsAResetConnection() async throws {
        try await ScriptedSocketServer.withRunning(.reset) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .connectionReset)
            }
        }
    }

    @Test func reportsAnIncompleteBody() async throws {
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly twenty bytes...".utf8)
        try await ScriptedSocketServer.withRunning(.respond(response, thenClose: true)) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .incompleteBody)
            }
        }
    }

    @Test func reportsAnIncompleteBodyWhenTheMockServerDropsMidway() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/drop?bytes=50000")))
                }
                #expect(error?.category == .incompleteBody)
            }
        }
    }

    /// libcurl 7.88.1 refuses one header line over 100 KiB itself, below the engine's
    /// 256 KiB header limit, and reports it as out of memory.
    @Test(arguments: [150 << 10, 1 << 20])
    func reportsOneOverlongHeaderLineAsHeadersTooLarge(length: Int) async throws {
        let response =
            "HTTP/1.1 200 OK\r\nX-Large: \(String(repeating: "a", count: length))\r\n"
            + "Content-Length: 2\r\n\r\nok"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .headersTooLarge)
                #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
                #expect(error?.message.contains("100 KiB") == true)
            }
        }
    }

    /// A TLS server given plain HTTP answers with a TLS alert (a record of type 21), closes
    /// (OpenSSL's `s_server`), or closes with the request unread, which resets the connection
    /// (Python's `ssl` module). Each keeps its category, and the request may have reached the
    /// server, but the message names the likely scheme mismatch instead of advising a retry.
    @Test(arguments: [
        (
            ScriptedSocketServer.Behaviour.respond([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46], thenClose: true),
            TransportError.Category.invalidResponse
        ),
        (.closeImmediately, .emptyReply),
        (.reset, .connectionReset),
    ])
    func suggestsHTTPSWhenAnHTTPRequestMeetsWhatATLSServerAnswers(
        behaviour: ScriptedSocketServer.Behaviour, category: TransportError.Category
    ) async throws {
        try await ScriptedSocketServer.withRunning(behaviour) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/status"))
                }
                #expect(error?.category == category)
                #expect(error?.mayHaveReachedServer == true)
                #expect(error?.message.contains("may expect https://127.0.0.1:\(server.port)/") == true)
                #expect(error?.message.contains("usually safe") == false)
            }
        }
    }

    @Test(arguments: ["HELLO THERE\r\n\r\n", "HTTP/1.1 2000 Nope\r\n\r\n", "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n"])
    func reportsAResponseThatBreaksTheProtocol(raw: String) async throws {
        try await ScriptedSocketServer.withRunning(.respond(Array(raw.utf8), thenClose: true)) { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.baseURL + "/"))
                }
                #expect(error?.category == .invalidResponse)
            }
        }
    }

    @Test func rejectsInjectionInARawHeadBeforeOpeningASocket() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            try await withTransport { transport in
                let head = HTTPRequest(
                    method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)",
                    path: "/a\r\nX-Injected: 1")
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(head: head))
                }
                #expect(error?.category == .invalidURL)
                #expect(error?.mayHaveReachedServer == false)
                #expect(server.acceptedConnections == 0)
            }
        }
    }

    @Test func aHeaderValueWithNewlinesNeverReachesTheWire() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Values built directly as HTTPFields are legalised by swift-http-types; the
                // injected line must not appear as a header of its own.
                var head = HTTPRequest(
                    method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/echo")
                head.headerFields[HTTPField.Name("X-Note")!] = "a\r\nX-Injected: yes"
                let echo = try Echo(try await transport.data(for: TransportRequest(head: head)).body)
                #expect(echo.header("X-Injected") == nil)
                #expect(server.receivedRequests().count == 1)
            }
        }
    }
}
