/// The weather fixture's model: what the full-stack peers decode from the envelope's `data`
/// (`parley-bench --stack full` through Parley's Mapping, `parley-bench-ahc --stack full`
/// through `JSONDecoder`), so that both decode exactly the same type.
public struct Forecast: Decodable, Sendable {
    /// One day of the forecast.
    public struct Day: Decodable, Sendable {
        /// The sky, in words.
        public let conditions: String
        /// The day's name.
        public let day: String
        /// The temperature, in degrees Celsius.
        public let temperature: Int
    }

    /// The city and country.
    public let location: String
    /// The next three days.
    public let threeDayForecast: [Day]

    enum CodingKeys: String, CodingKey {
        case location
        case threeDayForecast = "three_day_forecast"
    }
}
