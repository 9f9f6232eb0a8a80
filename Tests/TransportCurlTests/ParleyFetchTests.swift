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
}
