import Foundation
import Glibc
import MockBackend
import Testing

/// `parley-demo serve` as another client meets it, and the options that bound a command:
/// `--server`, `--retries`, `--timeout`.
///
/// One run of the binary at a time: each starts a backend of its own, and dozens at once on two
/// cores would starve the timing of other suites' in-process servers.
@Suite(.serialized) struct DemoServeTests {
    @Test func servesTheBackendToAnotherRunAndStopsOnSIGTERM() async throws {
        let server = try await DemoServer.start(["--port", "0"])

        let run = try await runDemo(["--server", server.baseURL, "weather", "forecast", "Paris", "--json"])
        let status = try await server.stop()

        #expect(run.status == 0, "\(run.standardError)")
        let forecast = try #require(try run.json() as? [String: Any])
        #expect(forecast["location"] as? String == "Paris, France")
        #expect(status == 143, "SIGTERM ends serve as it ends every command")
    }

    @Test func takesGlobalOptionsBeforeServeAndEndsWith130OnCtrlC() async throws {
        // Before, `parley-demo --verbose serve` was refused (exit 2), and Ctrl-C ended serve with 0.
        let server = try await DemoServer.start(["--port", "0"], globalOptions: ["--verbose", "--json"])

        let run = try await runDemo(["--server", server.baseURL, "system", "time"])
        let status = try await server.stop(with: SIGINT)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(status == 130)
    }

    @Test(arguments: ["--retries", "--timeout", "--server"])
    func refusesTheOptionsThatShapeRequestsBeforeOrAfterServe(option: String) async throws {
        let value = option == "--server" ? "http://127.0.0.1:9" : "2"
        for arguments in [[option, value, "serve"], ["serve", option, value]] {
            let run = try await runDemo(arguments)

            #expect(run.status == 2, "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains("\(option) does not apply to serve"), "\(run.standardError)")
            #expect(run.standardOutput.isEmpty)
        }
    }

    @Test func aChaosRateOfOneFailsEveryRequestAfterItsRetries() async throws {
        let server = try await DemoServer.start(["--chaos", "1", "--chaos-seed", "7"])

        let run = try await runDemo(["--server", server.baseURL, "--retries", "2", "system", "time"])
        _ = try await server.stop()

        #expect(run.status == 3)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.contains("attempt 3 of 3"), "\(run.standardError)")
    }

    @Test func theTimeoutEndsTheWholeCommandWithStatusThree() async throws {
        try await MockServer.withRunning { server in
            // Far longer than the timeout: without it, the run would wait 30 s and then succeed.
            server.faults.setDelay(.seconds(30), for: "/sysTime")

            let run = try await runDemo(["--server", server.baseURL, "--timeout", "1", "system", "time"])

            #expect(run.status == 3)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.contains("--timeout 1 s"), "\(run.standardError)")
        }
    }

    @Test func retriesAsManyTimesAsToldAndNoMore() async throws {
        try await MockServer.withRunning { server in
            server.faults.script("/sysTime", [.unavailable(retryAfter: .zero), .unavailable(retryAfter: .zero), .ok])

            let failed = try await runDemo(["--server", server.baseURL, "--retries", "1", "system", "time"])
            let passed = try await runDemo(["--server", server.baseURL, "--retries", "1", "system", "time"])

            #expect(failed.status == 3, "two 503s, one retry: \(failed.standardError)")
            #expect(passed.status == 0, "the script's ok: \(passed.standardError)")
            #expect(server.faults.counters(for: "/sysTime").requests == 3)
        }
    }
}
