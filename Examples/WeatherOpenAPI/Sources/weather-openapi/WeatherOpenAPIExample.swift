import Foundation
import OpenAPIRuntime
import Retry
import Transport
import TransportCurl
import WeatherOpenAPI

/// `weather-openapi URL`: calls each operation of the generated weather client once, through
/// Parley's engine with retries, against the mock backend at `URL`, and prints what it answered.
///
/// Exits 0 when every operation answered as the mock backend does, 1 otherwise, 2 on a bad
/// command line.
@main
struct WeatherOpenAPIExample {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let serverURL = URL(string: arguments[1]) else {
            print("usage: weather-openapi SERVER-URL (such as http://127.0.0.1:8080)")
            exit(2)
        }
        let engine: CurlTransport
        do {
            engine = try CurlTransport()
        } catch {
            print("weather-openapi: error: \(error)")
            exit(1)
        }
        // The chain every operation runs through: retries around the engine.
        let client = Client(serverURL: serverURL, parley: MiddlewareTransport(engine, middleware: [RetryMiddleware()]))
        var failures = 0
        do {
            failures += try await run(client)
        } catch {
            print("weather-openapi: error: \(error)")
            failures += 1
        }
        await engine.shutdown()
        exit(failures == 0 ? 0 : 1)
    }

    /// Calls every operation; returns how many answered otherwise than expected.
    static func run(_ client: Client) async throws -> Int {
        var failures = 0
        func check(_ condition: Bool, _ line: String) {
            print(condition ? "ok    \(line)" : "FAIL  \(line)")
            if !condition { failures += 1 }
        }

        let forecast = try await client.getForecast(query: .init(city: "Toronto")).ok.body.json
        let days = forecast.data?.threeDayForecast.map { "\($0.day) \($0.temperature)°" } ?? []
        check(
            forecast.code == 200 && days.count == 3,
            "getForecast: \(forecast.data?.location ?? "-"): \(days.joined(separator: ", "))")

        let unknown = try await client.getForecast(query: .init(city: "Atlantis")).ok.body.json
        check(unknown.code == 404 && unknown.data == nil, "getForecast: Atlantis: \(unknown.code) \(unknown.message)")

        let page = try await client.listCities(query: .init(limit: 3)).ok.body.json
        let names = page.data?.items.map(\.name) ?? []
        check(names.count == 3 && page.data?.cursor != nil, "listCities: \(names.joined(separator: ", ")), more after")

        let radar = try await client.getRadarImage(query: .init(city: "Toronto", size: 1 << 20)).ok
        var bytes = 0
        for try await chunk in try radar.body.binary { bytes += chunk.count }
        check(bytes == 1 << 20, "getRadarImage: \(bytes) bytes streamed, ETag \(radar.headers.eTag ?? "-")")

        let missing = try await client.getRadarImage(query: .init(city: "Atlantis"))
        if case .notFound(let notFound) = missing {
            check(try notFound.body.json.code == 404, "getRadarImage: Atlantis: 404 \(try notFound.body.json.message)")
        } else {
            check(false, "getRadarImage: Atlantis: \(missing)")
        }

        let time = try await client.getSystemTime().ok.body.json
        check(time.code == 200 && (time.data?.time ?? 0) > 0, "getSystemTime: \(time.data?.time ?? 0) ms since 1970")

        let releases = try await client.checkVersion(
            headers: .init(platform: "ios"), body: .json(.init(appVersion: "1.2.0"))
        ).ok.body.json
        let versions = releases.data?.map(\.version) ?? []
        check(versions == ["2.1.0", "2.0.0", "1.2.1"], "checkVersion: newer than 1.2.0 on ios: \(versions)")
        return failures
    }
}
