import Foundation
import TestSupport
import Testing

/// Running out of file descriptors, end to end: `parley-bench` started by a shell that lowers
/// its own `RLIMIT_NOFILE` first, so the limit of this (shared) test process never changes.
@Suite(
    .enabled(if: ExternalServers.required || ExternalServers.nginxURL != nil, "nginx is not running: use `make test`")
)
struct DescriptorLimitTests {
    /// 200 requests at once under a limit of 64 descriptors, for long enough (10,000 requests,
    /// seconds) that libdispatch's worker-pool monitor runs several times while the sockets
    /// press on the limit: the run ends, the process does not crash (that monitor traps when it
    /// finds no descriptor to open, which the engine's reserve prevents), and every request
    /// either completes or fails with the message that names the limit and what to change.
    @Test(.timeLimit(.minutes(1)))
    func requestsBeyondTheLimitFailWithAClearErrorAndNothingHangs() async throws {
        let url = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL") + "/small.bin"
        let bench = try ChildProcess.siblingExecutable("parley-bench")
        let run = try await ChildProcess.launch(
            "/bin/sh",
            arguments: [
                "-c", #"ulimit -n 64 && exec "$0" "$@""#, bench, "--url", url, "--requests", "10000", "--concurrency",
                "200",
            ])

        #expect(run.status == 1, "the child did not end as a run with failures: \(run.status)\n\(run.output)")
        let result = try #require(
            run.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") }, "no result line: \(run.output)")
        let fields = Dictionary(
            result.split(separator: " ").dropFirst().compactMap { field -> (String, Int)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { first, _ in first })
        let ok = try #require(fields["ok"])
        let errors = try #require(fields["errors"])
        #expect(ok + errors == 10000, "\(result)")
        #expect(ok > 0, "no request completed: \(result)")
        #expect(errors > 0, "the limit of 64 descriptors was never reached: \(result)")
        #expect(run.output.contains("(its limit, RLIMIT_NOFILE, is 64"))
        #expect(run.output.contains("the engine leaves the last 32 to the rest of the process"))
        #expect(run.output.contains("ulimit -n"))
        #expect(!run.output.contains("Check that the server is running"), "\(run.output)")
    }
}
