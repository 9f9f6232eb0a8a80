import Foundation
import HTTPTypes
import Testing
import Transport
import TransportCurl

/// Protocol conformance against httpbin, an independent server implementation.
@Suite(.enabled(if: ExternalServers.httpbinAvailable, "httpbin is not running: use `make test`"))
struct HTTPBinTests {
    let base: String

    init() throws {
        base = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
    }

    private func json(_ response: DataResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func echoesQueryAndHeaders() async throws {
        try await withTransport { transport in
            let response = try await transport.data(
                for: TransportRequest(
                    method: .get, url: base + "/get?city=Toronto&unit=c", headers: ["X-Trace": "abc"]))
            let body = try json(response)
            #expect(body["args"] as? [String: String] == ["city": "Toronto", "unit": "c"])
            #expect((body["headers"] as? [String: String])?["X-Trace"] == "abc")
        }
    }

    @Test(arguments: ["POST", "PUT", "PATCH", "DELETE"])
    func echoesBodiesOfEachMethod(method: String) async throws {
        try await withTransport { transport in
            let response = try await transport.data(
                for: TransportRequest(
                    method: try #require(HTTPRequest.Method(method)), url: base + "/" + method.lowercased(),
                    headers: ["Content-Type": "application/json"], body: .string(#"{"city":"Paris"}"#)))
            #expect(response.status == .ok)
            let body = try json(response)
            #expect((body["json"] as? [String: String]) == ["city": "Paris"])
        }
    }

    @Test(arguments: ["/gzip", "/deflate", "/brotli"])
    func decodesEveryContentEncodingHttpbinServes(path: String) async throws {
        try await withTransport { transport in
            let response = try await transport.data(for: TransportRequest(method: .get, url: base + path))
            let body = try json(response)
            let flag = ["/gzip": "gzipped", "/deflate": "deflated", "/brotli": "brotli"][path] ?? ""
            #expect(body[flag] as? Bool == true)
        }
    }

    @Test func followsHttpbinsRedirectChains() async throws {
        try await withTransport { transport in
            let relative = try await transport.data(for: TransportRequest(method: .get, url: base + "/redirect/4"))
            #expect(relative.status == .ok)
            #expect(relative.metrics?.redirectCount == 4)
            let absolute = try await transport.data(
                for: TransportRequest(method: .get, url: base + "/absolute-redirect/3"))
            #expect(absolute.metrics?.redirectCount == 3)
        }
    }

    @Test func streamsChunkedResponses() async throws {
        try await withTransport { transport in
            let response = try await transport.send(TransportRequest(method: .get, url: base + "/stream/20"))
            let text = String(decoding: try await response.body.collect(upTo: 1 << 20), as: UTF8.self)
            #expect(text.split(separator: "\n").count == 20)
        }
    }

    @Test(arguments: [200, 204, 418, 500])
    func reportsStatusCodes(code: Int) async throws {
        try await withTransport { transport in
            let response = try await transport.data(for: TransportRequest(method: .get, url: base + "/status/\(code)"))
            #expect(response.status.code == code)
        }
    }

    @Test func sendsCookiesOnlyWhereTheCallerPutsThem() async throws {
        try await withTransport { transport in
            let response = try await transport.data(
                for: TransportRequest(
                    method: .get, url: base + "/cookies", headers: ["Cookie": "a=1; b=2"]))
            #expect(try json(response)["cookies"] as? [String: String] == ["a": "1", "b": "2"])
            // Without a cookie jar (the default) a Set-Cookie is not replayed on the next request.
            _ = try await transport.data(
                for: TransportRequest(
                    method: .get, url: base + "/cookies/set?c=3",
                    options: {
                        var options = TransferOptions()
                        options.redirects = .none
                        return options
                    }()))
            let after = try await transport.data(for: TransportRequest(method: .get, url: base + "/cookies"))
            #expect(try json(after)["cookies"] as? [String: String] == [:])
        }
    }
}
