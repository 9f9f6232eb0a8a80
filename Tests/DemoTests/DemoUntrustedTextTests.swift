import Foundation
import MockBackend
import TestSupport
import Testing

/// `parley-demo` as a person runs it, given a URL with a credential and servers whose text is
/// full of escape sequences: standard error shows `<redacted>` for the one and no escape
/// sequence of the other, while a fetched body still goes to standard output byte for byte.
@Suite(.serialized) struct DemoUntrustedTextTests {
    static let secret = "s3cr3t-d3m0"

    /// Every way a server's text could drive a terminal, as JSON spells them: an OSC title, a
    /// screen clear, a cursor move, a carriage return, a C1 CSI and a bidi override.
    static let hostileJSON = #"Bad \u001b]0;pwned\u0007\u001b[2J\u001b[1A\rover\u009b31m \u202etxt"#

    private func expectNoEscapes(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for unsafe in ["\u{1B}", "\u{9B}", "\u{07}", "\r", "\u{202E}"] {
            #expect(!text.contains(unsafe), "\(text.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test func aFailedFetchShowsNoCredentialOfItsURL() async throws {
        try await MockServer.withRunning { server in
            let run = try await runDemo([
                "fetch", server.url("/status/404?access_token=\(Self.secret)"), "--verbose", "--retries", "0",
            ])
            #expect(run.status != 0, "\(run.standardError)")
            #expect(!run.standardError.contains(Self.secret), "\(run.standardError)")
            #expect(run.standardError.contains("access_token=<redacted>"), "\(run.standardError)")
        }
        // A URL the demo refuses is quoted without its password.
        let refused = try await runDemo(["fetch", "http://user:pa55@127.0.0.1:9/?token=\(Self.secret)"])
        #expect(refused.status == 2, "\(refused.standardError)")
        #expect(!refused.standardError.contains("pa55"), "\(refused.standardError)")
        #expect(!refused.standardError.contains(Self.secret), "\(refused.standardError)")
        #expect(refused.standardError.contains("<redacted>"), "\(refused.standardError)")
    }

    @Test func aBusinessErrorsMessageReachesStandardErrorWithoutItsEscapes() async throws {
        let body = #"{"code":500,"message":"\#(Self.hostileJSON)","data":null}"#
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            let run = try await runDemo(["--server", server.baseURL, "--retries", "0", "system", "time"])
            #expect(run.status != 0, "\(run.standardError)")
            #expect(run.standardError.contains("Bad �]0;pwned��[2J�[1A�over�31m �txt"), "\(run.standardError)")
            expectNoEscapes(run.standardError)
        }
    }

    @Test func aTextResultQuotingTheServerIsEscaped() async throws {
        let body = #"{"code":200,"message":"ok","data":[{"version":"9.0.0","notes":"\#(Self.hostileJSON)","time":0}]}"#
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            let run = try await runDemo(["--server", server.baseURL, "--retries", "0", "system", "version"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("9.0.0"), "\(run.standardOutput)")
            expectNoEscapes(run.standardOutput)
        }
    }

    @Test func verboseHeadersAndTheReasonPhraseAreEscapedButTheBodyIsNot() async throws {
        let body = "body \u{1B}[2J kept"
        let response =
            "HTTP/1.1 200 \u{9B}2J\u{1B}]0;pwned\u{07}OK\r\nX-Note: \u{9B}1A\u{1B}]0;pwned\u{07}\u{202E}\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            let run = try await runDemo(["fetch", server.baseURL + "/note", "--verbose", "--retries", "0"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardError.contains("X-Note"), "\(run.standardError)")
            expectNoEscapes(run.standardError)
            // The body is the user's data: written as it came, like curl writes it.
            #expect(run.outputData == Data(body.utf8))
        }
    }
}
