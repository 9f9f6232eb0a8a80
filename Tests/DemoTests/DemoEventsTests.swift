import Foundation
import Glibc
import TestSupport
import Testing

/// `parley-demo events`: the backend's server-sent event stream followed across the drops it
/// scripts, each event on standard output as it arrives, each reconnection on standard error.
@Suite(.serialized) struct DemoEventsTests {
    @Test func followsTheStreamAcrossReconnections() async throws {
        // Eight events, the connection dropped after 3 and 6, then the end and the backend's 204.
        let run = try await runDemo(["events", "--interval", "0", "--retry", "10"])

        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines == (1...8).map { "#\($0) tick: event \($0)" })
        let reconnections = run.standardError.split(separator: "\n").filter { $0.hasPrefix("Reconnecting") }
        #expect(reconnections.count == 3, "\(run.standardError)")
        #expect(run.standardError.contains("The stream ended after 8 events."))
    }

    @Test func printsOneJSONObjectALine() async throws {
        let run = try await runDemo(["--json", "events", "--count", "2", "--interval", "0", "--retry", "0"])

        #expect(run.status == 0, "\(run.standardError)")
        let objects = try run.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
        }
        #expect(
            objects == [
                ["id": "1", "type": "tick", "data": "event 1"], ["id": "2", "type": "tick", "data": "event 2"],
            ])
    }

    @Test func endsLikeCatWhenTheReaderGoesAway() async throws {
        let demo = try ChildProcess.siblingExecutable("parley-demo")
        let run = try await ClosedOutputRun.run(
            demo, arguments: ["events", "--count", "100000", "--interval", "1", "--drop-after", "0"], readingBytes: 20,
            environment: ["NO_COLOR": "1", "CI": "1"])

        #expect(run.signal == SIGPIPE, "status \(run.shellStatus)\n\(run.standardError)")
        #expect(!run.trapped, "\(run.standardError)")
    }
}
