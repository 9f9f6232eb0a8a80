/// The three-day forecast of the weather fixtures: the model the tests decode from the mock
/// server's `/weather` route and from the fixture files.
package struct Forecast: Codable, Equatable, Sendable {
    /// One day of the forecast.
    package struct Day: Codable, Equatable, Sendable {
        package var conditions: String
        package var day: String
        package var temperature: Int

        /// A day with the given conditions, name and temperature (°C).
        package init(conditions: String, day: String, temperature: Int) {
            self.conditions = conditions
            self.day = day
            self.temperature = temperature
        }
    }

    package var location: String
    package var threeDayForecast: [Day]

    enum CodingKeys: String, CodingKey {
        case location
        case threeDayForecast = "three_day_forecast"
    }

    /// A forecast of `location` for the given days.
    package init(location: String, threeDayForecast: [Day]) {
        self.location = location
        self.threeDayForecast = threeDayForecast
    }

    /// The forecast every weather fixture describes, and the mock server answers for Toronto.
    package static let toronto = Forecast(
        location: "Toronto, Canada",
        threeDayForecast: [
            Day(conditions: "Partly cloudy", day: "Monday", temperature: 20),
            Day(conditions: "Showers", day: "Tuesday", temperature: 22),
            Day(conditions: "Sunny", day: "Wednesday", temperature: 28),
        ]
    )
}

/// One day of ``Forecast``, by its short name.
package typealias Day = Forecast.Day
