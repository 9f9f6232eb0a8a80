import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// `parley-fetch`, run as a person runs it: the built binary against the mock server.
@Suite struct ParleyFetchTests {
    @Test func parleyFetchSavesTheFileAndExitsZero() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let count = 300_000
                let digest = SHA256Hasher.hexDigest(of: pattern(0..<count))
                let run = try await ChildProcess.launch(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.url("/bytes/\(count)"), "--output", folder + "/out.bin", "--sha256", digest])
                #expect(run.status == 0, "\(run.output)")
                #expect(run.output.contains("saved \(folder)/out.bin (\(count) bytes, sha256 \(digest))"))
                #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            }
        }
    }

    @Test(arguments: [false, true])
    func parleyFetchWritesNothingToStandardOutputSoAClosedOneChangesNothing(ignoringSIGPIPE: Bool) async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let count = 300_000
                let run = try await ClosedOutputRun.run(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.url("/bytes/\(count)"), "--output", folder + "/out.bin"], readingBytes: 0,
                    ignoringSIGPIPE: ignoringSIGPIPE)

                #expect(run.exitStatus == 0, "\(run.shellStatus)\n\(run.standardError)")
                #expect(run.standardError.contains("saved \(folder)/out.bin (\(count) bytes"))
                #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            }
        }
    }

    @Test func parleyFetchExitsNonZeroWithTheErrorMessage() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let run = try await ChildProcess.launch(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.url("/status/404"), "--output", folder + "/out.bin", "--quiet"])
                #expect(run.status == 1)
                #expect(run.output.hasPrefix("parley-fetch: error: "))
                #expect(run.output.contains("answered 404"))
                #expect(!exists(folder + "/out.bin"))
            }
        }
    }

    @Test func parleyFetchShowsNoCredentialOfTheURLItWasGiven() async throws {
        let secret = "s3cr3t-fe7c"
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                for url in [
                    server.url("/status/404?token=\(secret)"), "http://user:pa55@127.0.0.1:9/f?token=\(secret)",
                ] {
                    let run = try await ChildProcess.launch(
                        ChildProcess.siblingExecutable("parley-fetch"),
                        arguments: [url, "--output", folder + "/out.bin", "--quiet", "--retries", "0"])
                    #expect(run.status == 1, "\(run.output)")
                    #expect(run.output.hasPrefix("parley-fetch: error: "), "\(run.output)")
                    #expect(!run.output.contains(secret), "\(run.output)")
                    #expect(!run.output.contains("pa55"), "\(run.output)")
                    #expect(run.output.contains("<redacted>"), "\(run.output)")
                }
            }
        }
    }

    @Test(arguments: [
        // The reason phrase, quoted in the download's error.
        "HTTP/1.1 404 \u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[1A\u{9B}31m\u{202E}gone\r\nContent-Length: 0\r\n\r\n",
        // A redirect's Location, whose scheme the error that refuses it quotes.
        "HTTP/1.1 302 Found\r\nLocation: \u{9B}2J\u{1B}]0;pwned\u{07}\u{1B}[1A:x\r\nContent-Length: 0\r\n\r\n",
    ])
    func parleyFetchWritesNoEscapeSequenceAServerSent(response: String) async throws {
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            try await withTemporaryFolder { folder in
                let run = try await ChildProcess.launch(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.baseURL + "/f", "--output", folder + "/out.bin", "--quiet", "--retries", "0"])
                #expect(run.status == 1, "\(run.output)")
                #expect(run.output.hasPrefix("parley-fetch: error: "), "\(run.output.debugDescription)")
                // Neither ESC nor a C1 control (U+009B, the one-byte CSI) nor BEL nor a bidi override.
                for unsafe in ["\u{1B}", "\u{9B}", "\u{07}", "\u{202E}"] {
                    #expect(!run.output.contains(unsafe), "\(run.output.debugDescription)")
                }
            }
        }
    }
}
