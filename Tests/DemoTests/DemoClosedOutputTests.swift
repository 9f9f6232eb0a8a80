import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// parley-demo when the reader of its standard output goes away (`| head`): it ends as `cat`
/// does, killed by `SIGPIPE` (141 in a shell), with no trap and no backtrace; with `SIGPIPE`
/// ignored (inherited across `exec`), it exits 141.
///
/// Before the programs wrote through `StandardStreams`, each of these ended with status 132
/// and Foundation's "Fatal error" from `FileHandle.write`: the test process ignored `SIGPIPE`
/// then, and children inherited that; with `SIGPIPE` at its default they died silently, and
/// with it ignored they trapped.
@Suite(.serialized) struct DemoClosedOutputTests {
    /// Commands that print, and how many bytes the reader takes before closing: none for those
    /// that print in one write (the pipe is closed before they write), a few for those that
    /// print as they go.
    static let printing: [([String], Int)] = [
        (["system", "time"], 0),
        (["--json", "system", "time"], 0),
        (["weather", "forecast", "Toronto", "--json"], 0),
        (["weather", "cities", "--all", "--limit", "1"], 5),
        (["weather", "cities", "--all", "--json"], 0),
        (["tour"], 5),
        (["downloads", "--count", "3", "--size", "100000", "--chunk-delay", "0"], 0),
        (["serve"], 0),
    ]

    @Test(arguments: printing)
    func endsLikeCatWhenTheReaderGoesAway(arguments: [String], bytes: Int) async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        let run = try await ClosedOutputRun.run(
            demo, arguments: arguments, readingBytes: bytes, environment: ["NO_COLOR": "1", "CI": "1"])

        #expect(run.signal == SIGPIPE, "\(arguments): status \(run.shellStatus)\n\(run.standardError)")
        #expect(!run.trapped, "\(arguments):\n\(run.standardError)")
    }

    @Test(arguments: printing)
    func exits141WhenSIGPIPEIsIgnored(arguments: [String], bytes: Int) async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        let run = try await ClosedOutputRun.run(
            demo, arguments: arguments, readingBytes: bytes, environment: ["NO_COLOR": "1", "CI": "1"],
            ignoringSIGPIPE: true)

        #expect(run.signal == nil && run.exitStatus == 141, "\(arguments): \(run.shellStatus)\n\(run.standardError)")
        #expect(!run.trapped, "\(arguments):\n\(run.standardError)")
    }

    @Test(arguments: [false, true])
    func aFetchToStandardOutputEndsLikeCatAfterTheFirstBytes(ignoringSIGPIPE: Bool) async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            let run = try await ClosedOutputRun.run(
                demo, arguments: ["fetch", server.url("/bytes/10000000")], readingBytes: 10,
                environment: ["NO_COLOR": "1", "CI": "1"], ignoringSIGPIPE: ignoringSIGPIPE)

            #expect(run.read == Data((0..<10).map { UInt8($0) }))
            #expect(run.shellStatus == 141, "\(run.standardError)")
            #expect(run.signal == (ignoringSIGPIPE ? nil : SIGPIPE))
            #expect(!run.trapped, "\(run.standardError)")
        }
    }

    @Test func aDownloadToAFileIsWholeWhateverStandardOutputIs() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let file = folder + "/body.bin"
                let run = try await ClosedOutputRun.run(
                    demo, arguments: ["fetch", server.url("/bytes/3000000"), "--output", file], readingBytes: 0,
                    environment: ["NO_COLOR": "1", "CI": "1"])

                #expect(run.exitStatus == 0, "\(run.standardError)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == DemoFetchTests.pattern(3_000_000))
                #expect(!FileManager.default.fileExists(atPath: file + ".partial"))
            }
        }
    }
}
