/// A city's three-day forecast, as `GET /weather?city=…` sends it in the envelope's data:
/// `{"location": "Toronto, Canada", "three_day_forecast": [{"conditions", "day", "temperature"}]}`.
public struct Forecast: Codable, Sendable, Hashable {
    /// The place, as the server names it, such as `Toronto, Canada`.
    public var location: String
    /// The days, today first.
    public var days: [Day]

    /// One day of a forecast.
    public struct Day: Codable, Sendable, Hashable {
        /// The sky, such as `Partly cloudy`.
        public var conditions: String
        /// The day's name, such as `Monday`.
        public var day: String
        /// The temperature in degrees Celsius.
        public var temperature: Int

        /// Creates a day.
        ///
        /// - Parameters:
        ///   - conditions: The sky.
        ///   - day: The day's name.
        ///   - temperature: Degrees Celsius.
        public init(conditions: String, day: String, temperature: Int) {
            self.conditions = conditions
            self.day = day
            self.temperature = temperature
        }
    }

    /// Creates a forecast.
    ///
    /// - Parameters:
    ///   - location: The place.
    ///   - days: The days, today first.
    public init(location: String, days: [Day]) {
        self.location = location
        self.days = days
    }

    private enum CodingKeys: String, CodingKey {
        case location
        case days = "three_day_forecast"
    }
}
