import Foundation
import TestSupport
import Testing

/// Running out of file descriptors, end to end: `parley-bench` started by a shell that lowers
/// its own `RLIMIT_NOFILE` first, so the limit of this (shared) test process never changes.
@Suite(
    .enabled(if: ExternalServers.required || ExternalServers.nginxURL != nil, "nginx is not running: use `make test`")
)
struct DescriptorLimitTests {
    /// 200 requests at once under a limit of 64 descriptors: the run ends, every request either
    /// completes or fails with the message that names the limit and what to change.
    @Test(.timeLimit(.minutes(1)))
    func requestsBeyondTheLimitFailWithAClearErrorAndNothingHangs() async throws {
        let url = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL") + "/small.bin"
        let bench = try ChildProcess.siblingExecutable("parley-bench")
        let run = try await ChildProcess.launch(
            "/bin/sh",
            arguments: [
                "-c", #"ulimit -n 64 && exec "$0" "$@""#, bench, "--url", url, "--requests", "400", "--concurrency",
                "200",
            ])

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
        #expect(ok + errors == 400, "\(result)")
        #expect(errors > 0, "the limit of 64 descriptors was never reached: \(result)")
        #expect(run.status == 1)
        #expect(run.output.contains("The process ran out of file descriptors (its limit, RLIMIT_NOFILE, is 64)"))
        #expect(run.output.contains("ulimit -n"))
        #expect(!run.output.contains("Check that the server is running"), "\(run.output)")
    }
}
