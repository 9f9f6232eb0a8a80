import Feedback
import FeedbackTesting
import Forms
import Foundation
import HTTPTypes
import Mapping
import Retry
import TestSupport
import Testing
import Transport
import TransportTesting
import WeatherAPI

/// WeatherAPI with the test doubles only: a stub transport answers as the backend would, a
/// recording presenter stands for the terminal.
@Suite struct WeatherAPITests {
    /// A screen of the app that sends weather requests and shows their feedback.
    struct WeatherScreen: WeatherRequestable, Containable, Loadable, Progressable, Warnable, Sendable {
        let clientConfiguration: ClientConfiguration?
        let presenter: any FeedbackPresenter
        var containerId: String { "screen:weather" }
        var progressLabel: String { "forecasts" }
        var catalog: MessageCatalog { .english }
    }

    static let toronto = #"""
        {"location":"Toronto, Canada","three_day_forecast":[
          {"conditions":"Partly cloudy","day":"Monday","temperature":20},
          {"conditions":"Showers","day":"Tuesday","temperature":22},
          {"conditions":"Sunny","day":"Wednesday","temperature":28}]}
        """#

    static func envelope(code: Int = 200, message: String = "ok", data: String = "null") -> StubTransport.Reply {
        .init(body: Data(#"{"code":\#(code),"message":"\#(message)","data":\#(data)}"#.utf8))
    }

    static func screen(
        presenter: RecordingPresenter = RecordingPresenter(),
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ respond: @escaping @Sendable (TransportRequest) async throws -> StubTransport.Reply
    ) -> (WeatherScreen, StubTransport) {
        let transport = StubTransport(respond)
        var client = ClientConfiguration(transport: transport, baseURL: "https://weather.example")
        client.retry.maximumRetries = 0
        configure(&client)
        return (WeatherScreen(clientConfiguration: client, presenter: presenter), transport)
    }

    /// The query items of a request, by name.
    static func query(_ request: TransportRequest) -> [String: String] {
        let items = URLComponents(string: request.url)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    // MARK: - Forecasts

    @Test func decodesTheForecastInTheEnvelopesData() async throws {
        let (screen, transport) = Self.screen { _ in Self.envelope(data: Self.toronto) }

        let forecast = try await screen.forecast(city: " Toronto ").value

        #expect(forecast.location == "Toronto, Canada")
        #expect(forecast.days.map(\.temperature) == [20, 22, 28])
        #expect(transport.requests.map(\.url) == ["https://weather.example/weather?city=Toronto"])
    }

    @Test(arguments: [(0, "Monday"), (1, "Tuesday"), (2, "Wednesday")])
    func readsOneDayAtItsKeyPath(index: Int, day: String) async throws {
        let (screen, _) = Self.screen { _ in Self.envelope(data: Self.toronto) }

        let forecastDay = try await screen.forecastDay(city: "Toronto", index: index).value

        #expect(forecastDay.day == day)
    }

    @Test func namesTheMissingDayWhenTheForecastIsShorter() async throws {
        let (screen, _) = Self.screen { _ in Self.envelope(data: Self.toronto) }

        let result = await screen.forecastDay(city: "Toronto", index: 5).result

        let error = try #require(result.failure as? MappingError)
        #expect(error.message.contains("three_day_forecast"))
    }

    @Test func warnsWithTheServersMessageForAnUnknownCity() async throws {
        let recorder = RecordingPresenter()
        let (screen, _) = Self.screen(presenter: recorder) { _ in
            Self.envelope(code: 404, message: "Unknown city: Atlantis")
        }

        let result = await screen.forecast(city: "Atlantis").load(screen).warn(screen).result

        let error = try #require(result.failure as? BusinessError)
        #expect(error.code == 404)
        #expect(recorder.warnings.map(\.text) == ["Unknown city: Atlantis"])
        #expect(recorder.maskOutcomes(on: screen) == [.failed])
        #expect(recorder.isClear)
    }

    @Test func refusesAnEmptyCityBeforeSending() async throws {
        let (screen, transport) = Self.screen { _ in Self.envelope(data: Self.toronto) }

        let result = await screen.forecast(city: "  ").result

        #expect((result.failure as? FormError)?.category == .invalidParameters)
        #expect(transport.requests.isEmpty)
    }

    // MARK: - Cities

    @Test func readsAPageOfCitiesAndItsCursor() async throws {
        let (screen, transport) = Self.screen { _ in
            Self.envelope(data: #"{"items":[{"name":"北京","country":"中国"}],"cursor":"c-11"}"#)
        }

        let page = try await screen.cities(after: "c-10", limit: 1).value

        #expect(page.items == [City(name: "北京", country: "中国")])
        #expect(page.nextCursor == "c-11")
        #expect(page.hasMore)
        let sent = try #require(transport.requests.first)
        #expect(URLComponents(string: sent.url)?.path == "/weather/cities")
        #expect(Self.query(try TransportRequest(method: .get, url: sent.url)) == ["cursor": "c-10", "limit": "1"])
    }

    @Test(arguments: [0, 101])
    func refusesAPageSizeOutOfRange(limit: Int) async throws {
        let (screen, transport) = Self.screen { _ in Self.envelope(data: "{}") }

        let result = await screen.cities(limit: limit).result

        #expect((result.failure as? FormError)?.category == .invalidParameters)
        #expect(transport.requests.isEmpty)
    }

    @Test func walksEveryPageUntilTheCursorRunsOut() async throws {
        let (screen, transport) = Self.screen { request in
            switch Self.query(request)["cursor"] {
            case nil:
                Self.envelope(data: #"{"items":[{"name":"A","country":"X"},{"name":"B","country":"X"}],"cursor":"2"}"#)
            case "2": Self.envelope(data: #"{"items":[{"name":"C","country":"Y"}],"cursor":"3"}"#)
            default: Self.envelope(data: #"{"items":[{"name":"D","country":"Z"}],"cursor":null}"#)
            }
        }

        let cities = try await screen.allCities(pageSize: 2).value

        #expect(cities.map(\.name) == ["A", "B", "C", "D"])
        #expect(transport.requests.count == 3)
    }

    @Test func stopsWalkingAtAFailingPage() async throws {
        let (screen, transport) = Self.screen { request in
            Self.query(request)["cursor"] == nil
                ? Self.envelope(data: #"{"items":[{"name":"A","country":"X"}],"cursor":"bad"}"#)
                : Self.envelope(code: 400, message: "Invalid cursor: bad")
        }

        let result = await screen.allCities().result

        #expect((result.failure as? BusinessError)?.serverMessage == "Invalid cursor: bad")
        #expect(transport.requests.count == 2)
    }

    // MARK: - Batches

    @Test func countsABatchToTheEndWithEveryOutcomeInOrder() async throws {
        let recorder = RecordingPresenter()
        let (screen, _) = Self.screen(presenter: recorder) { request in
            Self.query(request)["city"] == "Atlantis"
                ? Self.envelope(code: 404, message: "Unknown city: Atlantis")
                : Self.envelope(data: Self.toronto)
        }

        let outcomes = try await screen.forecasts(for: ["Toronto", "Atlantis", "Paris", "Oslo"], maximumConcurrent: 2)
            .progress(screen).value

        #expect(outcomes.count == 4)
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true, true])
        let counts = recorder.events.compactMap { event -> CountProgress? in
            if case .progressCounted(_, let count) = event { count } else { nil }
        }
        #expect(counts.first == CountProgress(completed: 0, total: 4))
        #expect(counts.last == CountProgress(completed: 4, failed: 1, total: 4))
    }

    // MARK: - Logging in

    @Test func logsInAtTheFirstRefusalAndSendsTheReportAgainWithTheToken() async throws {
        try await withTemporaryFolder { folder in
            let photo = URL(fileURLWithPath: folder + "/sky.jpg")
            try Data(repeating: 7, count: 1000).write(to: photo)
            let (screen, transport) = Self.screen(configure: { WeatherLogin.install(on: &$0) }) { request in
                switch URLComponents(string: request.url)?.path {
                case "/auth/login":
                    return Self.envelope(data: #"{"token":"t-1","expiresIn":3600}"#)
                case "/weather/report" where request.head.headerFields[.authorization] == "Bearer t-1":
                    return Self.envelope(
                        data: #"{"id":"r-1","city":"Toronto","note":"Clear","bytes":1000,"sha256":"ab"}"#)
                default:
                    return Self.envelope(code: 401, message: "Log in first")
                }
            }

            let receipt = try await screen.report(city: "Toronto", note: "Clear", photo: photo).value

            #expect(receipt == WeatherReport(id: "r-1", city: "Toronto", note: "Clear", bytes: 1000, sha256: "ab"))
            let paths = transport.requests.map { URLComponents(string: $0.url)?.path ?? "" }
            #expect(paths == ["/weather/report", "/auth/login", "/weather/report"])
        }
    }

    @Test func refusesAMissingPhotoBeforeSending() async throws {
        let (screen, transport) = Self.screen { _ in Self.envelope(data: "{}") }

        let result = await screen.report(city: "Toronto", photo: URL(fileURLWithPath: "/nonexistent/photo.jpg")).result

        let error = try #require(result.failure as? TransportError)
        #expect(error.message.contains("/nonexistent/photo.jpg"))
        #expect(transport.requests.isEmpty)
    }
}
