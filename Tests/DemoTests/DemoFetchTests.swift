import Foundation
import MockBackend
import TestSupport
import Testing

/// `parley-demo fetch`, the general HTTP client, against the in-process mock server.
///
/// One run of the binary at a time: each starts a backend of its own, and dozens at once on two
/// cores would starve the timing of other suites' in-process servers.
@Suite(.serialized) struct DemoFetchTests {
    /// Pattern bytes as the mock server's `/bytes/{n}` sends them.
    static func pattern(_ count: Int) -> Data {
        Data(BytePattern.bytes(0..<count))
    }

    @Test func writesTheBodyToStandardOutputByteForByte() async throws {
        try await MockServer.withRunning { server in
            let run = try await runDemo(["fetch", server.url("/bytes/70000")])

            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.outputData == Self.pattern(70000))
        }
    }

    @Test func followsRedirectsToTheFinalBody() async throws {
        try await MockServer.withRunning { server in
            let run = try await runDemo(["fetch", server.url("/redirect/2")])

            #expect(run.status == 0, "\(run.standardError)")
            let echo = try #require(try run.json() as? [String: Any])
            #expect(echo["path"] as? String == "/echo")
        }
    }

    @Test func sendsTheMethodHeadersAndDataAsGiven() async throws {
        try await MockServer.withRunning { server in
            let run = try await runDemo([
                "fetch", server.url("/echo?a=1&b=%20"), "--method", "put", "--header", "X-Team: weather",
                "--header", "Content-Type: text/plain", "--data", "hello world",
            ])

            #expect(run.status == 0, "\(run.standardError)")
            let echo = try #require(try run.json() as? [String: Any])
            #expect(echo["method"] as? String == "PUT")
            #expect(echo["target"] as? String == "/echo?a=1&b=%20")
            #expect(echo["body"] as? String == "hello world")
            let headers = try #require(echo["headers"] as? [String: [String]])
            #expect(headers["x-team"] == ["weather"])
            #expect(headers["content-type"] == ["text/plain"])
        }
    }

    @Test func streamsADataFileAsTheBody() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let file = folder + "/body.bin"
                try Self.pattern(300_000).write(to: URL(fileURLWithPath: file))

                let run = try await runDemo(["fetch", server.url("/upload"), "--data-file", file])

                #expect(run.status == 0, "\(run.standardError)")
                let summary = try #require(try run.json() as? [String: Any])
                #expect(summary["method"] as? String == "POST")
                #expect(summary["bodyLength"] as? Int == 300_000)
            }
        }
    }

    @Test func savesToAFileAndResumesAfterADrop() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let file = folder + "/big.bin"
                let url = server.url("/bytes/1048576?drop-after=300000&key=fetch-\(UUID())&drops=1")

                let run = try await runDemo(["fetch", url, "--output", file])

                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardOutput.isEmpty)
                #expect(run.standardError.contains("saved \(file) (1048576 bytes"))
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Self.pattern(1_048_576))
            }
        }
    }

    @Test func streamsABodyFarLargerThanMemoryWouldHoldInConstantMemory() async throws {
        // Before, the body was held whole, and one over 64 MiB failed with responseTooLarge.
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            let small = try await ChildProcess.launch(
                demo, arguments: ["fetch", server.url("/bytes/1000")], standardOutput: "/dev/null")
            let large = try await ChildProcess.launch(
                demo, arguments: ["fetch", server.url("/bytes/\(256 << 20)")], standardOutput: "/dev/null")

            #expect(small.status == 0, "\(small.output)")
            #expect(large.status == 0, "\(large.output)")
            let growth = large.peakResidentBytes - small.peakResidentBytes
            if Sanitizer.active == nil {  // under a sanitizer the peak is the sanitizer's
                #expect(growth < 24 << 20, "256 MiB streamed with \(growth >> 20) MiB more than 1000 bytes")
            }
        }
    }

    @Test func resumesADroppedBodyFromTheBytesAlreadyWrittenWithoutWritingOneTwice() async throws {
        try await MockServer.withRunning { server in
            let url = server.url("/bytes/1048576?drop-after=300000&key=stream-\(UUID())&drops=1")

            let run = try await runDemo(["fetch", url])

            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.outputData == Self.pattern(1_048_576))
        }
    }

    @Test(arguments: ["no-validator=1", "etag-after-drop=other"])
    func failsADroppedBodyThatCannotResumeSayingHowManyBytesWereWritten(switch: String) async throws {
        try await MockServer.withRunning { server in
            let url = server.url("/bytes/1048576?drop-after=300000&key=stream-\(UUID())&drops=1&\(`switch`)")

            let run = try await runDemo(["fetch", url])

            #expect(run.status == 3, "\(run.standardError)")
            #expect(!run.outputData.isEmpty)
            #expect(run.outputData == Self.pattern(run.outputData.count), "the first bytes, once each")
            #expect(
                run.standardError.contains("after \(run.outputData.count) bytes were written to standard output"),
                "\(run.standardError)")
        }
    }

    @Test func failsAnHTTPErrorWithStatusThreeAndWritesNothing() async throws {
        try await MockServer.withRunning { server in
            let run = try await runDemo(["fetch", server.url("/status/404")])

            #expect(run.status == 3)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.contains("404"))
        }
    }

    @Test func leavesNoFileBehindADownloadTheServerRefuses() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let file = folder + "/missing.bin"

                let run = try await runDemo(["fetch", server.url("/status/404"), "--output", file])

                #expect(run.status == 3)
                let left = try FileManager.default.contentsOfDirectory(atPath: folder)
                #expect(left.isEmpty, "left behind: \(left)")
            }
        }
    }

    @Test func neverRetriesAPostWithoutAnIdempotencyKey() async throws {
        try await MockServer.withRunning { server in
            let scope = "fetch-\(UUID())"
            let run = try await runDemo(["fetch", server.url("/idempotent?resets=1&scope=\(scope)"), "--data", "x"])

            #expect(run.status == 3)
            let stats = try await runDemo(["fetch", server.url("/idempotent/stats?scope=\(scope)")])
            let summary = try #require(try stats.json() as? [String: Any])
            #expect(summary["attempts"] as? Int == 1)
        }
    }

    @Test(arguments: [[] as [String], ["key-123"]])
    func retriesAPostWithAnIdempotencyKeyAndAppliesItOnce(key: [String]) async throws {
        try await MockServer.withRunning { server in
            let scope = "fetch-\(UUID())"
            let url = server.url("/idempotent?resets=1&scope=\(scope)")
            let run = try await runDemo(["fetch", "--idempotency-key"] + key + [url, "--data", "x"])

            #expect(run.status == 0, "\(run.standardError)")
            let summary = try #require(try run.json() as? [String: Any])
            #expect(summary["applied"] as? Int == 1)
            #expect(summary["attempts"] as? Int == 2)
            #expect(summary["sameKey"] as? Bool == true)
            if let key = key.first {
                #expect(summary["keys"] as? [String] == [key, key])
            }
        }
    }
}
