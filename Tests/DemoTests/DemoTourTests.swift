import Foundation
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
}
