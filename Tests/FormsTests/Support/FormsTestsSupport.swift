import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import Testing
import Transport
import TransportCurl
import TransportTesting

// A feature module written like the design's sketch, against a stub and a real server.

enum WeatherForm: RequestFormable {
    case forecast(city: String)
    case report(city: String, temperature: Int)
    case search(tags: [String], filter: [String: any Sendable])

    var path: String {
        switch self {
        case .forecast, .search: "/weather"
        case .report: "/reports"
        }
    }
    var method: HTTPRequest.Method {
        if case .report = self { return .post }
        return .get
    }
    var parameters: Parameters {
        switch self {
        case .forecast(let city): ["city": city]
        case .report(let city, let temperature): ["city": city, "temperature": temperature]
        case .search(let tags, let filter): ["tag": tags, "filter": filter]
        }
    }
    var headers: [String: String] {
        if case .report = self { return ["X-Report": "1"] }
        return [:]
    }
}

struct Profile: Codable, Sendable, Equatable {
    let name: String
    let age: Int
}

struct UpdateProfile: RequestFormable {
    let profile: Profile
    var path: String { "profile" }
    var method: HTTPRequest.Method { .put }
    var jsonBody: (any Encodable & Sendable)? { profile }
    var parameters: Parameters { ["v": 2] }
}

struct Screen: Requestable {
    let clientConfiguration: ClientConfiguration?
}

func stubbed(_ reply: StubTransport.Reply = .init(body: Data("{}".utf8))) -> (StubTransport, ClientConfiguration) {
    let stub = StubTransport(always: reply)
    var configuration = ClientConfiguration(transport: stub, baseURL: "https://api.example.com/v1/")
    configuration.headers = ["Accept": "application/json", "X-Client": "parley"]
    configuration.dynamicHeaders = { ["Authorization": "Bearer token-1"] }
    configuration.commonParameters = { ["app_version": "2.1.0"] }
    return (stub, configuration)
}

/// A team's own base protocol: its defaults are set once, in one extension.
protocol TeamForm: RequestFormable {}

extension TeamForm {
    var baseURL: String? { "https://team.example.com" }
    var headers: [String: String] { ["X-Team": "weather", "Accept": "application/json"] }
}

/// A class form of the team that overrides one default.
final class ProfileLookup: TeamForm {
    let id: Int
    init(id: Int) { self.id = id }
    var path: String { "/profiles/\(id)" }
    var headers: [String: String] { ["X-Team": "profiles"] }
}

/// A struct form of the team that keeps every default.
struct TeamStatus: TeamForm {
    var path: String { "/status" }
}
