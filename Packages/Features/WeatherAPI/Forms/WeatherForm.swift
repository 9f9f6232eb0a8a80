import Forms
import HTTPTypes

/// The weather service's ordinary requests, answered in the backend's envelope.
///
/// Internal: ``WeatherRequestable`` is the feature's public face; the forms are how it talks to its
/// server.
enum WeatherForm: RequestFormable {
    /// `GET /weather?city=NAME`: a city's forecast.
    case forecast(city: String)
    /// `GET /weather/cities?cursor=C&limit=N`: a page of the cities the service knows.
    case cities(cursor: String?, limit: Int)

    var path: String {
        switch self {
        case .forecast: "/weather"
        case .cities: "/weather/cities"
        }
    }

    var parameters: Parameters {
        switch self {
        case .forecast(let city):
            ["city": city]
        case .cities(let cursor, let limit):
            if let cursor { ["cursor": cursor, "limit": limit] } else { ["limit": limit] }
        }
    }
}

/// The login endpoints: `POST /auth/login` and `POST /auth/refresh`.
enum LoginForm: RequestFormable {
    /// A new token.
    case login
    /// A new token for `token`, which this server issued (expired or not).
    case refresh(token: String)

    var path: String {
        switch self {
        case .login: "/auth/login"
        case .refresh: "/auth/refresh"
        }
    }

    var method: HTTPRequest.Method { .post }

    var headers: [String: String] {
        switch self {
        case .login: [:]
        case .refresh(let token): ["Authorization": "Bearer \(token)"]
        }
    }
}
