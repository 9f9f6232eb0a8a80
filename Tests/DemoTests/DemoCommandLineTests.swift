import Foundation
import MockBackend
import TestSupport
import Testing

/// parley-demo's command line, against the backend it embeds: every command, its exit
/// status, what goes to standard output and what to standard error, and `--json` shapes.
///
/// One run of the binary at a time: each starts a backend of its own, and dozens at once on two
/// cores would starve the timing of other suites' in-process servers.
@Suite(.serialized) struct DemoCommandLineTests {
    // MARK: - Help and usage

    @Test func printsItsHelpOnStandardOutputAndExitsZero() async throws {
        let run = try await runDemo(["--help"])

        #expect(run.status == 0)
        #expect(run.standardOutput.contains("USAGE: parley-demo"))
        #expect(run.standardOutput.contains("Exit status"))
    }

    @Test func listsTheGlobalOptionsInTheRootHelp() async throws {
        let run = try await runDemo(["--help"])

        #expect(run.status == 0)
        // Before, the root's help named no global option: each command declares them.
        for option in [
            "--server <url>", "--json", "--retries <n>", "--verbose", "--no-input", "--timeout <seconds>",
            "--cacert <file>",
        ] {
            #expect(run.standardOutput.contains(option), "\(option):\n\(run.standardOutput)")
        }
        #expect(run.standardOutput.contains("141"), "the status of a closed standard output")
    }

    @Test(arguments: [
        (["system", "time", "--bogus"], "--bogus"),
        (["--retries", "-1", "system", "time"], "--retries"),
        (["--timeout", "0", "system", "time"], "--timeout"),
        (["--server", "ftp://example.com", "system", "time"], "--server"),
        (["weather", "forecast", "Toronto", "--mask", "curtain"], "curtain"),
        (["weather", "forecast", "Toronto", "--day", "-1"], "--day"),
        (["weather", "cities", "--limit", "0"], "--limit"),
        (["weather", "report", "Toronto", "--photo", "/nonexistent.jpg"], "/nonexistent.jpg"),
        (["weather", "batch"], "<cities>"),
        (["system", "version", "--app-version", "one.two"], "--app-version"),
        (["fetch", "not a url"], "not an http or https URL"),
        (["fetch", "http://127.0.0.1:9/", "--header", "NoColon"], "no colon"),
        (["fetch", "http://127.0.0.1:9/", "--header", "Bad Name: x"], "not a valid header name"),
        (["fetch", "http://127.0.0.1:9/", "--data", "a", "--data-file", "/etc/hostname"], "not both"),
        (["serve", "--chaos", "2"], "--chaos"),
        (["fetch", "http://127.0.0.1:9/", "--json"], "--json does not apply to fetch"),
        (["--json", "fetch", "http://127.0.0.1:9/"], "--json does not apply to fetch"),
        (["tour", "--json"], "--json does not apply to tour"),
        (["--json", "tour"], "--json does not apply to tour"),
    ])
    func refusesBadInputWithStatusTwoAndNamesTheProblem(arguments: [String], named: String) async throws {
        let run = try await runDemo(arguments)

        #expect(run.status == 2, "\(arguments): \(run.standardError)")
        #expect(run.standardError.contains(named), "\(arguments): \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }

    // MARK: - System

    @Test func showsTheServerTimeOnStandardOutput() async throws {
        let run = try await runDemo(["system", "time"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Server time: "))
        #expect(run.standardOutput.contains("ms since 1970"))
    }

    @Test func printsTheServerTimeAsJSON() async throws {
        let before = Date().timeIntervalSince1970 * 1000
        let run = try await runDemo(["--json", "system", "time"])

        #expect(run.status == 0, "\(run.standardError)")
        let document = try #require(try run.json() as? [String: Any])
        let time = try #require(document["time"] as? Double)
        #expect(time >= before - 1000)
    }

    @Test func listsTheReleasesNewerThanTheAppVersionAsJSON() async throws {
        let run = try await runDemo(["system", "version", "--app-version", "1.1.0", "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        let document = try #require(try run.json() as? [String: Any])
        #expect(document["appVersion"] as? String == "1.1.0")
        let releases = try #require(document["releases"] as? [[String: Any]])
        #expect(!releases.isEmpty)
        #expect(releases.allSatisfy { $0["version"] is String && $0["notes"] is String && $0["time"] is Double })
    }

    // MARK: - Weather

    @Test func showsTorontosForecastFromTheFixture() async throws {
        let run = try await runDemo(["weather", "forecast", "Toronto"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Toronto, Canada\n"))
        #expect(run.standardOutput.contains("Partly cloudy"))
        #expect(run.standardOutput.contains("28 °C"))
    }

    @Test func printsTheForecastAsJSONInTheServersShape() async throws {
        let run = try await runDemo(["weather", "forecast", "北京", "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        let forecast = try #require(try run.json() as? [String: Any])
        #expect(forecast["location"] as? String == "北京, 中国")
        let days = try #require(forecast["three_day_forecast"] as? [[String: Any]])
        #expect(days.count == 3)
        #expect(days.allSatisfy { $0["day"] is String && $0["conditions"] is String && $0["temperature"] is Int })
    }

    @Test(arguments: ["spinner", "hud", "none"], ["screen", "panel", "row", "button", "refresh", "log"])
    func loadsUnderEveryMaskInEveryContainer(mask: String, container: String) async throws {
        let run = try await runDemo(["weather", "forecast", "Oslo", "--mask", mask, "--container", container])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("Oslo, Norway\n"))
    }

    @Test func readsOneDayAsJSON() async throws {
        let run = try await runDemo(["weather", "forecast", "Toronto", "--day", "1", "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        let day = try #require(try run.json() as? [String: Any])
        #expect(day["day"] as? String == "Tuesday")
        #expect(day["temperature"] as? Int == 22)
    }

    @Test func failsAnUnknownCityWithTheServersMessageAndStatusOne() async throws {
        let run = try await runDemo(["weather", "forecast", "Atlantis"])

        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.contains("Unknown city: Atlantis"))
    }

    @Test func refusesADayTheForecastDoesNotHaveWithStatusTwo() async throws {
        let run = try await runDemo(["weather", "forecast", "Toronto", "--day", "9"])

        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.contains("--day 9"), "\(run.standardError)")
    }

    @Test func failsAnAnswerThatDoesNotDecodeWithStatusFour() async throws {
        // A server that answers every request with JSON that is not the envelope.
        let body = #"{"hello":"world"}"#
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            let run = try await runDemo(["--server", server.baseURL, "--retries", "0", "system", "time"])

            #expect(run.status == 4, "\(run.standardError)")
            #expect(run.standardOutput.isEmpty)
        }
    }

    @Test func keepsGlobalOptionsBeforeTheEndOfOptions() async throws {
        // After `--` every word is an argument: `--json` given first must stay an option.
        let run = try await runDemo(["--json", "weather", "batch", "--", "Paris"])

        #expect(run.status == 0, "\(run.standardError)")
        let outcomes = try #require(try run.json() as? [[String: Any]])
        #expect(outcomes.map { $0["city"] as? String } == ["Paris"])
    }

    @Test func walksEveryPageOfCitiesIncludingChineseNames() async throws {
        let run = try await runDemo(["weather", "cities", "--all", "--limit", "25", "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        let document = try #require(try run.json() as? [String: Any])
        let items = try #require(document["items"] as? [[String: String]])
        #expect(items.count >= 50)
        #expect(items.contains { $0["name"] == "北京" })
        #expect(document["cursor"] is NSNull)
    }

    @Test func printsTheNextCursorAfterOnePage() async throws {
        let run = try await runDemo(["weather", "cities", "--limit", "5"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.split(separator: "\n").count == 6)
        #expect(run.standardOutput.contains("More: parley-demo weather cities --cursor "))
    }

    @Test func downloadsTheRadarImageToTheFile() async throws {
        try await withTemporaryFolder { folder in
            let file = folder + "/radar.png"
            let run = try await runDemo(["weather", "radar", "Toronto", "--output", file, "--size", "300000", "--json"])

            #expect(run.status == 0, "\(run.standardError)")
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect(attributes[.size] as? Int == 300_000)
            let document = try #require(try run.json() as? [String: Any])
            #expect(document["bytes"] as? Int == 300_000)
            #expect(document["resumedFrom"] as? Int == 0)
        }
    }

    @Test func sendsAReportAfterLoggingInByItself() async throws {
        try await withTemporaryFolder { folder in
            let photo = folder + "/sky.jpg"
            let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: URL(fileURLWithPath: photo))

            let run = try await runDemo(["weather", "report", "Toronto", "--photo", photo, "--note", "Clear", "--json"])

            #expect(run.status == 0, "\(run.standardError)")
            let receipt = try #require(try run.json() as? [String: Any])
            #expect(receipt["bytes"] as? Int == 200_000)
            #expect(receipt["city"] as? String == "Toronto")
            #expect(receipt["note"] as? String == "Clear")
            #expect((receipt["sha256"] as? String)?.count == 64)
        }
    }

    @Test func countsABatchAndFailsItWithTheFirstFailuresStatus() async throws {
        let run = try await runDemo(["weather", "batch", "Toronto", "Atlantis", "Paris"])

        #expect(run.status == 1)
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains("Unknown city: Atlantis"))
        #expect(lines[3] == "2 of 3 forecasts, 1 failed.")
        #expect(run.standardError.contains("3 of 3 done, 1 failed"))
    }

    @Test func printsEveryOutcomeOfABatchAsJSON() async throws {
        let run = try await runDemo(["weather", "batch", "Lima", "Atlantis", "--json"])

        #expect(run.status == 1)
        let outcomes = try #require(try run.json() as? [[String: Any]])
        #expect(outcomes.map { $0["city"] as? String } == ["Lima", "Atlantis"])
        #expect((outcomes[0]["forecast"] as? [String: Any])?["location"] as? String == "Lima, Peru")
        #expect(outcomes[1]["error"] as? String == "Unknown city: Atlantis")
        #expect(outcomes[1]["code"] as? String == "404")
    }

    @Test func logsInAndPrintsTheToken() async throws {
        let run = try await runDemo(["login", "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        let token = try #require(try run.json() as? [String: Any])
        #expect((token["token"] as? String)?.isEmpty == false)
        #expect(token["expiresIn"] as? Int == 3600)
    }

    // MARK: - Failures after retries

    @Test func failsWithStatusThreeWhenNothingListens() async throws {
        let run = try await runDemo(["--server", "http://127.0.0.1:9", "--retries", "1", "system", "time"])

        #expect(run.status == 3)
        #expect(run.standardOutput.isEmpty)
        #expect(!run.standardError.isEmpty)
    }
}
