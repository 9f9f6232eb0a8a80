import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// Basic and Digest credentials (`TransferOptions.credentials`): against httpbin's challenges,
/// across redirects (never to another origin) and in the logs (never).
@Suite struct AuthenticationTests {
    @Test(
        .enabled(if: ExternalServers.httpbinAvailable, "httpbin is not running: use `make test`"),
        arguments: [HTTPCredentials.Scheme.basic, .digest, .any])
    func answersHttpbinsChallenges(scheme: HTTPCredentials.Scheme) async throws {
        let httpbin = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
        let path = scheme == .basic ? "/basic-auth/ada/s3cret" : "/digest-auth/auth/ada/s3cret"
        let store = LogCapture()
        try await withTransport(.with { $0.logger = store.logger(level: .trace) }) { transport in
            var request = try TransportRequest(method: .get, url: httpbin + path)
            request.options.credentials = HTTPCredentials(user: "ada", password: "s3cret", scheme: scheme)
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(object["authenticated"] as? Bool == true)
            #expect(object["user"] as? String == "ada")

            request.options.credentials?.password = "wrong"
            #expect(try await transport.data(for: request).status == .unauthorized)
        }
        // httpbin takes the password in the path too, so the log shows it there; never as a credential.
        let log = store.messages.joined(separator: "\n")
        #expect(log.contains("→ GET"))
        #expect(!log.contains(Data("ada:s3cret".utf8).base64EncodedString()))
        #expect(!log.lowercased().contains("authorization: basic"))
        #expect(!log.lowercased().contains("authorization: digest"))
    }

    @Test(.enabled(if: ExternalServers.httpbinAvailable, "httpbin is not running: use `make test`"))
    func streamsTheResponseAfterADigestChallenge() async throws {
        let httpbin = try ExternalServers.require(ExternalServers.httpbinURL, "PARLEY_HTTPBIN_URL")
        try await withTransport { transport in
            var request = try TransportRequest(method: .get, url: httpbin + "/digest-auth/auth/ada/s3cret")
            request.options.credentials = .digest(user: "ada", password: "s3cret")
            let response = try await transport.send(request)
            #expect(response.status == .ok)
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(String(decoding: body, as: UTF8.self).contains("\"authenticated\": true"))
        }
    }

    @Test func keepsCredentialsOnTheSameOriginAndDropsThemOnAnother() async throws {
        try await MockServer.withRunning { first in
            try await MockServer.withRunning { second in
                try await withTransport { transport in
                    for (target, keeps) in [(first.url("/echo"), true), (second.url("/echo"), false)] {
                        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                        let events = LockedRecorder<TransferEvent>()
                        var request = try TransportRequest(
                            method: .get, url: first.url("/redirect-to?status=302&url=\(encoded)"))
                        request.options.credentials = .basic(user: "ada", password: "s3cret")
                        request.options.eventHandler = events.handler
                        let echo = try Echo(try await transport.data(for: request).body)
                        let expected = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
                        #expect(echo.header("Authorization") == (keeps ? expected : nil), "to \(target)")
                        let redirect = events.all.compactMap { if case .redirect(let r) = $0 { r } else { nil } }.first
                        #expect(redirect?.strippedHeaders.contains(.authorization) == !keeps)
                    }
                }
            }
        }
    }

    @Test func credentialsOfTheTransportApplyUnlessARequestSetsNone() async throws {
        try await MockServer.withRunning { server in
            let configuration = CurlTransport.Configuration.with {
                $0.defaultOptions.credentials = .basic(user: "ada", password: "s3cret")
            }
            try await withTransport(configuration) { transport in
                let sent = try Echo(
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo"))).body)
                #expect(sent.header("Authorization")?.hasPrefix("Basic ") == true)
                var request = try TransportRequest(method: .get, url: server.url("/echo"))
                request.options.credentials = nil
                #expect(try Echo(try await transport.data(for: request).body).header("Authorization") == nil)
            }
        }
    }
}
