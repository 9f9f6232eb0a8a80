import BenchmarkSupport
import Forms
import Foundation
import HTTPTypes
import Mapping
import Transport
import TransportCurl

/// The business layer as a feature module uses it: a form, a `Requestable`, the envelope's
/// code checked and the weather model decoded at key path `data`.
struct FullStackClient: Requestable {
    /// The endpoint: the path of the benchmark URL.
    struct ForecastForm: RequestFormable {
        let path: String
    }

    let clientConfiguration: ClientConfiguration?
    let form: ForecastForm

    /// Splits `url` into the client's base URL and the form's path.
    ///
    /// - Parameter taskExecutor: The executor the handles' operations prefer (one of the
    ///   engine's loops), or `nil` for none.
    init(transport: CurlTransport, url: String, taskExecutor: (any TaskExecutor)? = nil) throws {
        let parts = try RequestValidation.parseURL(url)
        var configuration = ClientConfiguration(transport: transport, baseURL: "\(parts.scheme)://\(parts.authority)")
        configuration.transferOptions.maximumBodySize = .max
        configuration.taskExecutor = taskExecutor
        clientConfiguration = configuration
        form = ForecastForm(path: parts.path)
    }

    /// One request through the same layers without a handle (`data(for:)`, then the envelope
    /// decoded by Mapping's `ResponseDecoder`); returns the body's byte count.
    func forecastAwaited() async throws -> Int {
        let response = try await data(for: form)
        let forecast = try ResponseDecoder().decodeEnvelope(Forecast.self, from: response)
        guard forecast.threeDayForecast.count == 3 else {
            throw MappingError(.other, message: "The forecast has \(forecast.threeDayForecast.count) days, not 3.")
        }
        return Int(response.metrics?.bytesReceived ?? 0)
    }

    /// One request through every layer; returns the body's byte count. A body that does not
    /// decode, or an envelope whose code is not a success, throws and counts as an error.
    func forecast() async throws -> Int {
        let request = request(form).decodeEnvelope(Forecast.self)
        let forecast = try await request.value
        guard forecast.threeDayForecast.count == 3 else {
            throw MappingError(.other, message: "The forecast has \(forecast.threeDayForecast.count) days, not 3.")
        }
        return Int(await request.response?.metrics?.bytesReceived ?? 0)
    }
}
