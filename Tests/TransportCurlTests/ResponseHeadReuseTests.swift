import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

/// The engine parses each response head in C, into buffers its easy handle keeps from one
/// transfer to the next (`parley_head_callback`): with one loop and one connection, every
/// request below reuses the same handle, so each head must start empty and carry only its own
/// response's fields.
///
/// Checked to fail: with `parley_head_restart` made to keep the lines of the last head, the
/// redirect's target carried its hop's `Location`, and the final head after a 103 carried the
/// 103's `Link` and its own `X-A` fields twice.
@Suite struct ResponseHeadReuseTests {
    private static let oneHandle = CurlTransport.Configuration.with {
        $0.loopCount = 1
        $0.maximumConnectionsPerHost = 1
    }

    @Test func eachHeadOnAReusedHandleCarriesItsOwnFieldsOnly() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(Self.oneHandle) { transport in
                // Duplicate fields keep their order.
                let first = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/response-headers?X-Dup=1&X-Dup=2")))
                let dup = try #require(HTTPField.Name("X-Dup"))
                #expect(first.head.headerFields[values: dup] == ["1", "2"])

                // A head past the 16 KiB the handle keeps, then small ones on the same handle.
                let large = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/large-headers?size=20000")))
                let largeName = try #require(HTTPField.Name("X-Large"))
                #expect(large.head.headerFields[largeName]?.count == 20000)
                #expect(large.head.headerFields[dup] == nil)

                let small = try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/10")))
                #expect(small.status == .ok)
                #expect(small.head.headerFields[dup] == nil)
                #expect(small.head.headerFields[largeName] == nil)
                #expect(small.head.headerFields[.contentLength] == "10")
                #expect(small.body.count == 10)
            }
        }
    }

    /// A redirect hop's head (its `Location`, its fields) is not the final response's.
    @Test func theResponseOfARedirectCarriesTheLastHopsHeadOnly() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(Self.oneHandle) { transport in
                let target = "/response-headers?X-Final=yes"
                let encoded = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let events = PThreadMutex<[TransferEvent]>([])
                var request = try TransportRequest(
                    method: .get, url: server.url("/redirect-to?url=\(encoded)&status=302"))
                request.options.eventHandler = { event in
                    if case .redirect = event { events.withLock { $0.append(event) } }
                }
                let response = try await transport.data(for: request)
                #expect(response.status == .ok)
                #expect(response.head.headerFields[try #require(HTTPField.Name("X-Final"))] == "yes")
                #expect(response.head.headerFields[.location] == nil)
                #expect(events.withLock { $0.count } == 1)
            }
        }
    }

    /// An interim head is reported with its own fields and left out of the response, whose
    /// reason phrase and repeated fields arrive as sent.
    @Test func anInterimHeadIsAnEventAndTheFinalHeadTheResponse() async throws {
        let raw =
            "HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
            + "HTTP/1.1 200 Fine Thanks\r\nX-A: 1\r\nX-A: 2\r\nContent-Length: 2\r\n\r\nok"
        try await ScriptedSocketServer.withRunning(.respond(raw, thenClose: false)) { server in
            try await withTransport(Self.oneHandle) { transport in
                for observed in [true, false] {
                    let interim = PThreadMutex<[HTTPResponse]>([])
                    var request = try TransportRequest(method: .get, url: server.baseURL + "/")
                    if observed {
                        request.options.eventHandler = { event in
                            if case .informationalResponse(let head) = event { interim.withLock { $0.append(head) } }
                        }
                    }
                    let response = try await transport.data(for: request)
                    #expect(response.status.code == 200)
                    #expect(response.head.status.reasonPhrase == "Fine Thanks")
                    #expect(response.head.headerFields[values: try #require(HTTPField.Name("X-A"))] == ["1", "2"])
                    #expect(response.head.headerFields[try #require(HTTPField.Name("Link"))] == nil)
                    #expect(response.body == Data("ok".utf8))
                    let heads = interim.withLock { $0 }
                    #expect(heads.map(\.status.code) == (observed ? [103] : []))
                    if observed {
                        #expect(heads.first?.headerFields[try #require(HTTPField.Name("Link"))] == "</style.css>")
                    }
                }
            }
        }
    }
}
