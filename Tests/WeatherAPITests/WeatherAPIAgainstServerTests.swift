import Downloads
import Forms
import Foundation
import HTTPTypes
import Mapping
import MockBackend
import Retry
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl
import WeatherAPI

/// WeatherAPI against the mock backend's business routes, over the engine: forecasts, the
/// city list, the radar image, reports behind a login, batches, and retries after faults.
@Suite struct WeatherAPIAgainstServerTests {
    struct WeatherScreen: WeatherRequestable, Sendable {
        let clientConfiguration: ClientConfiguration?
    }

    func withScreen(
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ body: (WeatherScreen, MockServer) async throws -> Void
    ) async throws {
        try await withServerAndTransport { server, transport in
            var client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            // Each test has its own budget, so one test's faults never hold back another's retries.
            client.retry.budget = RetryBudget()
            client.retry.baseDelay = .milliseconds(10)
            configure(&client)
            try await body(WeatherScreen(clientConfiguration: client), server)
        }
    }

    // MARK: - Forecasts

    @Test func readsTorontosForecastFromTheFixture() async throws {
        try await withScreen { screen, _ in
            let forecast = try await screen.forecast(city: "toronto").value

            #expect(forecast.location == "Toronto, Canada")
            #expect(forecast.days.map(\.temperature) == [20, 22, 28])
            #expect(forecast.days.map(\.conditions) == ["Partly cloudy", "Showers", "Sunny"])
        }
    }

    @Test func readsTheSameGeneratedForecastTwiceAndAnotherForAnotherCity() async throws {
        try await withScreen { screen, _ in
            let first = try await screen.forecast(city: "北京").value
            let again = try await screen.forecast(city: "北京").value
            let other = try await screen.forecast(city: "Paris").value

            #expect(first == again)
            #expect(first.location == "北京, 中国")
            #expect(first != other)
        }
    }

    @Test func readsOneDayAtTheKeyPath() async throws {
        try await withScreen { screen, _ in
            let day = try await screen.forecastDay(city: "Toronto", index: 2).value

            #expect(day == Forecast.Day(conditions: "Sunny", day: "Wednesday", temperature: 28))
        }
    }

    @Test func failsAnUnknownCityWithTheServersMessage() async throws {
        try await withScreen { screen, _ in
            let result = await screen.forecast(city: "Atlantis").result

            let error = try #require(result.failure as? BusinessError)
            #expect(error.code == 404)
            #expect(error.serverMessage == "Unknown city: Atlantis")
        }
    }

    // MARK: - Cities

    @Test func walksEveryPageOfCities() async throws {
        try await withScreen { screen, server in
            let cities = try await screen.allCities(pageSize: 7).value

            #expect(cities.count >= 50)
            #expect(Set(cities.map(\.name)).count == cities.count)
            #expect(cities.contains(City(name: "上海", country: "中国")))
            #expect(server.requestCount(for: "/weather/cities") == (cities.count + 6) / 7)
        }
    }

    @Test func failsAForgedCursorWithTheServersMessage() async throws {
        try await withScreen { screen, _ in
            let result = await screen.cities(after: "not-a-cursor").result

            #expect((result.failure as? BusinessError)?.serverMessage == "Invalid cursor: not-a-cursor")
        }
    }

    // MARK: - The radar image

    @Test func downloadsTheRadarImageAndResumesAfterACancel() async throws {
        try await withScreen { screen, server in
            try await withTemporaryFolder { folder in
                let destination = URL(fileURLWithPath: folder + "/radar.png")
                let size = 4 << 20
                // 64 KiB every 20 ms: over a second, long enough to cancel half-way.
                server.faults.setPace(.milliseconds(20), for: "/weather/radar")
                let first = screen.radar(city: "Toronto", size: size, to: destination)
                // Nobody awaits it yet: a handler has it run now, in a task of its own.
                first.completion { _ in }
                try await waitUntil { Self.fileSize(destination.path + ".partial") > 256 * 1024 }
                first.cancel()
                #expect((await first.result.failure as? TransportError)?.category == .cancelled)
                let kept = Self.fileSize(destination.path + ".partial")
                #expect(kept > 0)

                server.faults.setPace(.zero, for: "/weather/radar")
                let summary = try await screen.radar(city: "Toronto", size: size, to: destination).value

                #expect(summary.byteCount == Int64(size))
                #expect(summary.resumedFrom >= Int64(kept))
                #expect(Self.fileSize(destination.path) == size)
            }
        }
    }

    @Test func failsTheRadarOfAnUnknownCityWithoutWritingTheFile() async throws {
        try await withScreen { screen, _ in
            try await withTemporaryFolder { folder in
                let destination = URL(fileURLWithPath: folder + "/radar.png")

                let result = await screen.radar(city: "Atlantis", to: destination).result

                #expect(result.failure != nil)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
            }
        }
    }

    // MARK: - Reports behind a login

    @Test func logsInSendsTheReportAndRefreshesAnExpiredToken() async throws {
        try await withServerAndTransport { server, transport in
            try await withTemporaryFolder { folder in
                let photo = URL(fileURLWithPath: folder + "/sky.jpg")
                let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
                try bytes.write(to: photo)
                var client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
                let login = WeatherLogin.install(on: &client)
                let screen = WeatherScreen(clientConfiguration: client)

                let first = try await screen.report(city: "Toronto", note: "Clear", photo: photo).value
                let token = try #require(login.credential)
                _ = try await transport.data(for: TransportRequest(method: .post, url: server.url("/auth/expire")))
                let second = try await screen.report(city: "Toronto", photo: photo).value

                #expect(first.bytes == 300_000)
                #expect(first.note == "Clear")
                #expect(first.sha256 == second.sha256)
                #expect(second.note == nil)
                #expect(login.credential != token, "the expired token was replaced")
                let stats = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/auth/stats")))
                let counters = try #require(try JSONSerialization.jsonObject(with: stats.body) as? [String: Any])
                #expect(counters["logins"] as? Int == 1)
                #expect(counters["refreshes"] as? Int == 1)
            }
        }
    }

    // MARK: - Batches and faults

    @Test func countsABatchWithAFailureInIt() async throws {
        try await withScreen { screen, _ in
            let counts = LockedRecorder<CountProgress>()
            let batch = screen.forecasts(for: ["Toronto", "Atlantis", "Oslo", "Lima"], maximumConcurrent: 2)
            batch.observe { event in
                if case .count(let count) = event { counts.append(count) }
            }

            let outcomes = try await batch.value

            #expect(
                outcomes.map { (try? $0.get())?.location } == ["Toronto, Canada", nil, "Oslo, Norway", "Lima, Peru"])
            #expect(counts.all.last == CountProgress(completed: 4, failed: 1, total: 4))
        }
    }

    @Test func retriesAfterADropAndA503ThenSucceeds() async throws {
        try await withScreen { screen, server in
            server.faults.script("/weather", [.drop, .unavailable(retryAfter: .zero)])
            let retries = LockedRecorder<RetryEvent>()
            let handle = screen.forecast(city: "Toronto")
            handle.observe { event in
                if case .retry(let retry) = event { retries.append(retry) }
            }

            let forecast = try await handle.value

            #expect(forecast.location == "Toronto, Canada")
            #expect(retries.all.map(\.attempt) == [2, 3])
            #expect(server.faults.counters(for: "/weather") == .init(requests: 3, drops: 1, unavailable: 1))
        }
    }
}

extension WeatherAPIAgainstServerTests {
    /// The size of the file at `path`, or -1 when there is none.
    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }
}
