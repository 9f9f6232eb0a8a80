/// A city the weather backend knows: its name as the catalog spells it, and its country.
struct City: Hashable, Sendable {
    /// The name as listed by `/weather/cities`, such as `São Paulo` or `北京`.
    let name: String
    /// The country, in the same language as the name: `Brazil`, `中国`.
    let country: String

    /// `NAME, COUNTRY`: the `location` of the city's forecast.
    var location: String { "\(name), \(country)" }

    /// `{"name", "country"}`, an item of `/weather/cities`.
    var json: JSONValue {
        .object(["name": .string(name), "country": .string(country)])
    }
}
