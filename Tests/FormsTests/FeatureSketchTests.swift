import Forms
import Foundation
import Mapping
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

// A feature module as the design sketches it: it imports Forms, Mapping and Transport only.

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
            #expect(forecast.location == "Toronto, Canada")
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
            let lines = LockedRecorder<String>()
            let request = screen.forecast(city: "Paris")
                .success { lines.append("location \($0.location)") }
                .failure { lines.append("failure \($0.message)") }
                .completion { _ in lines.append("done") }
            _ = try await request.value
            #expect(lines.all == ["location Paris, France", "done"])
        }
    }

    @Test func turnsANonSuccessCodeIntoABusinessErrorAndRoutesChosenCodes() async throws {
        try await withScreen { screen in
            let routed = LockedRecorder<String>()
            let envelope = StandardEnvelope.standard(routes: ["TOKEN_EXPIRED": { routed.append("refresh \($0.code)") }])
            let decoder = ResponseDecoder(envelope: envelope)
            let lines = LockedRecorder<String>()
            let request = screen.failing(code: "TOKEN_EXPIRED", message: "Sign in again", decoder: decoder)
                .failure { lines.append($0.message) }
            let result = await request.result
            let error = try #require(result.failure as? BusinessError)
            #expect(error.code == "TOKEN_EXPIRED")
            #expect(lines.all == ["Sign in again"])
            #expect(routed.all == ["refresh TOKEN_EXPIRED"])
        }
    }
}
