import Foundation
import HTTPTypes

/// The cities of the weather backend, and what it derives from each: its forecast and the seed
/// of its radar image.
///
/// Toronto's forecast is the weather fixture itself; every other city's is generated from a
/// ``StableHash`` of its name, so it is the same on every request, in every process and on
/// every run, and differs from city to city. Names match whatever their case, and with spaces
/// around them: `  paris ` is Paris, `SÃO PAULO` is São Paulo, `北京` is 北京.
enum CityCatalog {
    /// Every city, in the order `/weather/cities` pages through them: 60 cities, among them
    /// eight Chinese ones with Chinese names and country `中国`, and Latin names with accents.
    static let all: [City] = [
        City(name: "Toronto", country: "Canada"),
        City(name: "Paris", country: "France"),
        City(name: "北京", country: "中国"),
        City(name: "上海", country: "中国"),
        City(name: "广州", country: "中国"),
        City(name: "深圳", country: "中国"),
        City(name: "成都", country: "中国"),
        City(name: "杭州", country: "中国"),
        City(name: "武汉", country: "中国"),
        City(name: "西安", country: "中国"),
        City(name: "São Paulo", country: "Brazil"),
        City(name: "Zürich", country: "Switzerland"),
        City(name: "Montréal", country: "Canada"),
        City(name: "Bogotá", country: "Colombia"),
        City(name: "Kraków", country: "Poland"),
        City(name: "Reykjavík", country: "Iceland"),
        City(name: "Oslo", country: "Norway"),
        City(name: "Rome", country: "Italy"),
        City(name: "Lima", country: "Peru"),
        City(name: "London", country: "United Kingdom"),
        City(name: "Berlin", country: "Germany"),
        City(name: "Madrid", country: "Spain"),
        City(name: "Lisbon", country: "Portugal"),
        City(name: "Amsterdam", country: "Netherlands"),
        City(name: "Brussels", country: "Belgium"),
        City(name: "Vienna", country: "Austria"),
        City(name: "Prague", country: "Czechia"),
        City(name: "Warsaw", country: "Poland"),
        City(name: "Stockholm", country: "Sweden"),
        City(name: "Copenhagen", country: "Denmark"),
        City(name: "Helsinki", country: "Finland"),
        City(name: "Dublin", country: "Ireland"),
        City(name: "Athens", country: "Greece"),
        City(name: "Istanbul", country: "Türkiye"),
        City(name: "Cairo", country: "Egypt"),
        City(name: "Nairobi", country: "Kenya"),
        City(name: "Lagos", country: "Nigeria"),
        City(name: "Cape Town", country: "South Africa"),
        City(name: "Dubai", country: "United Arab Emirates"),
        City(name: "Mumbai", country: "India"),
        City(name: "Delhi", country: "India"),
        City(name: "Bangkok", country: "Thailand"),
        City(name: "Singapore", country: "Singapore"),
        City(name: "Jakarta", country: "Indonesia"),
        City(name: "Manila", country: "Philippines"),
        City(name: "Seoul", country: "South Korea"),
        City(name: "Tokyo", country: "Japan"),
        City(name: "Osaka", country: "Japan"),
        City(name: "Sydney", country: "Australia"),
        City(name: "Melbourne", country: "Australia"),
        City(name: "Auckland", country: "New Zealand"),
        City(name: "Vancouver", country: "Canada"),
        City(name: "New York", country: "United States"),
        City(name: "Chicago", country: "United States"),
        City(name: "San Francisco", country: "United States"),
        City(name: "Los Angeles", country: "United States"),
        City(name: "Mexico City", country: "Mexico"),
        City(name: "Buenos Aires", country: "Argentina"),
        City(name: "Santiago", country: "Chile"),
        City(name: "Havana", country: "Cuba"),
    ]

    /// The cities by ``key(_:)`` of their names.
    private static let byKey: [String: City] = Dictionary(
        all.map { (key($0.name), $0) }, uniquingKeysWith: { first, _ in first })

    /// The days every forecast covers, in order.
    static let days = ["Monday", "Tuesday", "Wednesday"]

    /// The city called `name`, compared without case and without surrounding white space.
    ///
    /// - Returns: The city, or `nil` when the backend does not know it.
    static func city(named name: String) -> City? {
        byKey[key(name)]
    }

    /// `name` as looked up: trimmed of white space and lowercased (Unicode-aware, so `SÃO`
    /// finds `São`).
    static func key(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// The forecast of `city`: the fixture for Toronto, generated for the others.
    ///
    /// - Throws: ``RouteError`` (500) when the fixture is missing from the bundle.
    static func forecast(for city: City) throws -> Forecast {
        guard city.name == "Toronto" else { return generatedForecast(for: city) }
        guard let fixture = Forecast.fixture else {
            throw RouteError(.internalServerError, "the weather fixture is missing from the MockBackend bundle")
        }
        return fixture
    }

    /// A forecast derived from the city's name alone: a base temperature between −8 °C and
    /// 32 °C, each day within 4 degrees of it, and conditions that suit the temperature.
    static func generatedForecast(for city: City) -> Forecast {
        var generator = SplitMix64(seed: StableHash.fnv1a("forecast:" + city.name))
        let base = generator.next(in: -8...32)
        let cold = ["Snow", "Light snow", "Cloudy", "Sunny", "Fog", "Windy"]
        let mild = ["Sunny", "Partly cloudy", "Cloudy", "Showers", "Rain", "Thunderstorms", "Fog", "Windy"]
        let days = days.map { day in
            let temperature = base + generator.next(in: -4...4)
            let choices = temperature <= 0 ? cold : mild
            return Forecast.Day(
                conditions: choices[generator.next(in: 0...(choices.count - 1))], day: day, temperature: temperature)
        }
        return Forecast(location: city.location, threeDayForecast: days)
    }

    /// The seed of the city's radar image: the same for every request, different per city.
    static func radarSeed(of city: City) -> UInt64 {
        StableHash.fnv1a("radar:" + city.name)
    }
}
