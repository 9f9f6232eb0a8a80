import Foundation
import TestSupport
import Testing

/// The guided tour `make demo` runs, with standard output and standard error piped.
@Suite struct DemoTourTests {
    @Test func visitsEveryStopAndFinishesWithStatusZeroWhenPiped() async throws {
        let run = try await runDemo(["tour"])

        #expect(run.status == 0, "\(run.standardError)")
        let stops = [
            "System time and version", "A forecast with a loading mask", "The cities, page by page",
            "A radar download with a progress bar", "A report upload", "A batch with a count",
            "A failure with the server's message", "A retry after a fault",
        ]
        for (number, stop) in stops.enumerated() {
            #expect(run.standardOutput.contains("── \(number + 1). \(stop)"), "\(stop)")
        }
        #expect(run.standardOutput.contains("Server time: "))
        #expect(run.standardOutput.contains("Toronto, Canada"))
        #expect(run.standardOutput.contains("北京"))
        #expect(run.standardOutput.contains("Report report-"))
        #expect(run.standardOutput.contains("7 of 8 forecasts, 1 failed."))
        #expect(run.standardOutput.hasSuffix("--mask hud\n"))
        #expect(run.standardError.contains("Unknown city: Atlantis"))
        #expect(run.standardError.lowercased().contains("retry"), "a retry notice:\n\(run.standardError)")
        #expect(!run.standardError.utf8.contains(0x1B), "no escape sequence when piped")
        #expect(!run.standardOutput.utf8.contains(0x1B))
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PARLEY_NGINX_URL"] != nil
                || ProcessInfo.processInfo.environment["PARLEY_REQUIRE_SERVERS"] == "1",
            "PARLEY_NGINX_URL is not set: run the tests with Tools/scripts/with-test-servers.sh"))
    func goesToItsEndAgainstAServerThatIsNotTheMockWarningAtEveryStep() async throws {
        let nginx = try #require(
            ProcessInfo.processInfo.environment["PARLEY_NGINX_URL"], "PARLEY_NGINX_URL is not set")

        let run = try await runDemo(["--server", nginx, "--retries", "0", "tour"])

        // Before, the first fault route nginx refused ended a stop early, and the final reset
        // ended the tour with that failure.
        #expect(run.status == 3, "the status of the first step that did not go as planned:\n\(run.standardError)")
        for number in 1...8 {
            #expect(run.standardOutput.contains("── \(number). "), "stop \(number):\n\(run.standardOutput)")
        }
        #expect(run.standardOutput.contains("Tour done."))
        #expect(run.standardError.contains("did not take POST /faults/reset"), "\(run.standardError)")
        #expect(run.standardError.contains("did not take POST /faults/delay"), "\(run.standardError)")
        #expect(run.standardError.contains("Stop 1, System time and version, did not go as planned"))
        #expect(run.standardError.contains("The tour reached its end, but"))
    }
}
