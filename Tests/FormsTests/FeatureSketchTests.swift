import Forms
import Foundation
import Mapping
import MockBackend
import Synchronization
import Testing
import Transport
import TransportCurl

// A feature module as the design sketches it: it imports Forms, Mapping and Transport only.

struct Forecast: Decodable, Sendable, Equatable {
    struct Day: Decodable, Sendable, Equatable {
        let conditions: String
        let day: String
        let temperature: Int
    }
    let location: String
    let threeDayForecast: [Day]

    enum CodingKeys: String, CodingKey {
        case location
        case threeDayForecast = "three_day_forecast"
    }
}

enum SketchWeatherForm: RequestFormable {
    case forecast(city: String)
    case failing(code: String, message: String)

    var path: String { "/weather" }
    var parameters: Parameters {
        switch self {
        case .forecast(let city): ["city": city]
        case .failing(let code, let message): ["code": code, "message": message]
        }
    }
}

protocol SketchWeatherAPI: Requestable {}

extension SketchWeatherAPI {
    func forecast(city: String) -> DataRequest<Forecast> {
        request(SketchWeatherForm.forecast(city: city)).decodeEnvelope(Forecast.self)
    }

    func days(city: String) -> DataRequest<[Forecast.Day]> {
        request(SketchWeatherForm.forecast(city: city)).decode([Forecast.Day].self, at: "data.three_day_forecast")
    }

    func failing(code: String, message: String, decoder: ResponseDecoder) -> DataRequest<Forecast> {
        request(SketchWeatherForm.failing(code: code, message: message)).decodeEnvelope(Forecast.self, decoder: decoder)
    }
}

struct SketchScreen: SketchWeatherAPI {
    let clientConfiguration: ClientConfiguration?
}

@Suite struct FeatureSketchTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func withScreen(_ body: (SketchScreen) async throws -> Void) async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            let screen = SketchScreen(
                clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))
            do {
                try await body(screen)
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
        }
    }

    @Test func awaitsATypedModelFromTheEnvelope() async throws {
        try await withScreen { screen in
            let forecast = try await screen.forecast(city: "Toronto").value
            #expect(forecast.location == "Toronto")
            #expect(forecast.threeDayForecast.map(\.temperature) == [20, 22, 28])
        }
    }

    @Test func decodesAtANestedKeyPath() async throws {
        try await withScreen { screen in
            let days = try await screen.days(city: "Paris").value
            #expect(days.map(\.day) == ["Monday", "Tuesday", "Wednesday"])
        }
    }

    @Test func mixesCallbackChainsWithAwait() async throws {
        try await withScreen { screen in
            let lines = Lines()
            let request = screen.forecast(city: "Paris")
                .success { lines.add("location \($0.location)") }
                .failure { lines.add("failure \($0.message)") }
                .completion { _ in lines.add("done") }
            _ = try await request.value
            #expect(lines.all == ["location Paris", "done"])
        }
    }

    @Test func turnsANonSuccessCodeIntoABusinessErrorAndRoutesChosenCodes() async throws {
        try await withScreen { screen in
            let routed = Lines()
            let envelope = StandardEnvelope.standard(routes: ["TOKEN_EXPIRED": { routed.add("refresh \($0.code)") }])
            let decoder = ResponseDecoder(envelope: envelope)
            let lines = Lines()
            let request = screen.failing(code: "TOKEN_EXPIRED", message: "Sign in again", decoder: decoder)
                .failure { lines.add($0.message) }
            let result = await request.result
            let error = try #require(result.failureValue as? BusinessError)
            #expect(error.code == "TOKEN_EXPIRED")
            #expect(lines.all == ["Sign in again"])
            #expect(routed.all == ["refresh TOKEN_EXPIRED"])
        }
    }
}
