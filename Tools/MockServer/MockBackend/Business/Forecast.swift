import Foundation

/// A three-day forecast, as `/weather` answers it: the shape of the weather fixtures.
///
/// ```json
/// {"location": "Toronto, Canada",
///  "three_day_forecast": [{"conditions": "Partly cloudy", "day": "Monday", "temperature": 20}, …]}
/// ```
struct Forecast: Codable, Equatable, Sendable {
    /// One day: its name, the weather in words, and the temperature in °C.
    struct Day: Codable, Equatable, Sendable {
        /// The weather in words, such as `Showers`.
        var conditions: String
        /// The day's name, such as `Monday`.
        var day: String
        /// The temperature in whole degrees Celsius.
        var temperature: Int

        /// `{"conditions", "day", "temperature"}`.
        var json: JSONValue {
            .object(["conditions": .string(conditions), "day": .string(day), "temperature": .int(temperature)])
        }
    }

    /// `NAME, COUNTRY`.
    var location: String
    /// Three days, Monday first.
    var threeDayForecast: [Day]

    /// The fixture's key for ``threeDayForecast``.
    enum CodingKeys: String, CodingKey {
        case location
        case threeDayForecast = "three_day_forecast"
    }

    /// `{"location", "three_day_forecast"}`.
    var json: JSONValue {
        .object(["location": .string(location), "three_day_forecast": .array(threeDayForecast.map(\.json))])
    }

    /// The weather fixture (`Resources/forecast.json`, the shared `sample_json`): Toronto's
    /// forecast, read from the bundle once.
    ///
    /// `nil` only when the bundle lacks the file, which `/weather` reports as a 500.
    static let fixture: Forecast? = {
        guard let url = Bundle.module.url(forResource: "forecast", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return try? JSONDecoder().decode(Forecast.self, from: data)
    }()
}
