import Foundation
import TestSupport
import Testing

/// The short version of `make soak`: `parley-soak` run as a person runs it, with 3,000 requests
/// and 20 downloads against a mock server that faults a tenth of its answers.
///
/// The soak checks itself and exits 1 naming what failed; the test also reads its summary, so
/// that a soak whose faults, retries or kills silently stopped happening fails too.
@Suite(.serialized)
struct SoakTests {
    @Test func aShortSoakEndsEveryRequestOnceAppliesEveryKeyOnceAndDoesNotGrow() async throws {
        // Given the soak built by Tools/All, with the server and the downloader it runs
        let soak = try ChildProcess.siblingExecutable("parley-soak")

        // When it sends 3,000 requests, 64 at a time, a tenth of them faulted, one in 20
        // cancelled, then makes 20 downloads, some of them killed with SIGKILL
        let run = try await ChildProcess.launch(
            soak, arguments: ["--requests", "3000", "--downloads", "20", "--hang-after", "60"])

        // Then it passes, and its summary shows the traffic it was meant to make
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("parley-soak: PASS"), "\(run.output)")
        let summary = Summary(run.output)
        #expect(summary.number(after: "requests: ") >= 3000, "\(run.output)")
        #expect(summary.line(starting: "requests: ")?.contains(" 0 running, 0 hung, 0 ended twice") == true)
        #expect(summary.number(after: "retries seen on handles: ") > 0, "\(run.output)")
        for fault in [
            "drop before a byte", "reset mid-body", "stall mid-body", "503 with Retry-After",
            "503 without Retry-After",
        ] {
            #expect(summary.number(after: "fault \(fault): ") > 0, "no \(fault) injected: \(run.output)")
        }
        #expect(summary.line(starting: "idempotency ledger: ")?.hasSuffix(" 0 applied more than once") == true)
        #expect(summary.number(after: "download byte-exact: ") > 0, "\(run.output)")
        #expect(!run.output.contains("FAIL"), "\(run.output)")
    }

    /// The soak's printed summary, read line by line.
    struct Summary {
        let lines: [Substring]

        init(_ output: String) {
            lines = output.split(separator: "\n").map { $0.drop { $0 == " " } }
        }

        /// The first line that starts with `prefix` (leading spaces ignored).
        func line(starting prefix: String) -> Substring? {
            lines.first { $0.hasPrefix(prefix) }
        }

        /// The number right after `prefix` on the first line starting with it; -1 when absent.
        func number(after prefix: String) -> Int {
            guard let line = line(starting: prefix) else { return -1 }
            return Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) ?? -1
        }
    }
}
