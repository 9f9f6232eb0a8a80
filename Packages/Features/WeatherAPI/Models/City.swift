/// A city the weather service knows, as `GET /weather/cities` lists them:
/// `{"name": "Toronto", "country": "Canada"}`.
public struct City: Codable, Sendable, Hashable {
    /// The name to ask for forecasts with, such as `Toronto` or `北京`.
    public var name: String
    /// The country, in the city's own language where the server gives it so.
    public var country: String

    /// Creates a city.
    ///
    /// - Parameters:
    ///   - name: The name.
    ///   - country: The country.
    public init(name: String, country: String) {
        self.name = name
        self.country = country
    }
}
