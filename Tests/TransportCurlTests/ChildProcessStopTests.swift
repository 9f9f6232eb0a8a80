import Foundation
import TestSupport
import Testing

/// A test that runs a tool and is cancelled (its time limit, say) stops the tool instead of
/// waiting for it: a tool that cannot finish must fail its test, never hang the suite.
@Suite struct ChildProcessStopTests {
    /// Checked to fail: with the cancellation handler removed from `ChildProcess.launch`, the
    /// run waits for `sleep` to end and the child runs its full ten minutes.
    @Test(.timeLimit(.minutes(1))) func cancellingTheAwaitingTaskStopsTheChildAndItsGroup() async throws {
        let run = Task {
            try await ChildProcess.launch("/bin/sh", arguments: ["-c", "sleep 600; echo finished"])
        }
        try await Task.sleep(for: .milliseconds(300))
        run.cancel()
        let child = try await run.value
        // GNU time dies of the SIGTERM its process group got, with the shell and `sleep`.
        #expect(child.status == 128 + SIGTERM)
        #expect(!child.output.contains("finished"))
    }

    @Test func aChildThatEndsReportsItsStatusOutputAndPeak() async throws {
        let child = try await ChildProcess.launch("/bin/sh", arguments: ["-c", "echo hello; exit 3"])
        #expect(child.status == 3)
        #expect(child.output == "hello\n")
        #expect(child.peakResidentBytes > 0)
    }
}
