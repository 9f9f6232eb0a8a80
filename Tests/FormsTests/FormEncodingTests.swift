import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

struct FormEncodedLogin: RequestFormable {
    let user: String
    var path: String { "/login" }
    var method: HTTPRequest.Method { .post }
    var encoding: ParameterEncoding { .formURLEncoded }
    var parameters: Parameters { ["user": user, "remember": true] }
}

@Suite struct FormEncodingTests {
    @Test func classFormsAndTeamDefaultsFromOneExtensionWork() async throws {
        let (stub, configuration) = stubbed()
        let screen = Screen(clientConfiguration: configuration)
        _ = try await screen.request(TeamStatus()).value
        _ = try await screen.request(ProfileLookup(id: 7)).value
        let status = try #require(stub.requests.first)
        #expect(status.url == "https://team.example.com/status?app_version=2.1.0")
        #expect(status.head.headerFields[HTTPField.Name("X-Team")!] == "weather")
        let profile = try #require(stub.requests.last)
        #expect(profile.url == "https://team.example.com/profiles/7?app_version=2.1.0")
        #expect(profile.head.headerFields[HTTPField.Name("X-Team")!] == "profiles")
        // The client's own Accept stays where the form's headers do not name it.
        #expect(profile.head.headerFields[.accept] == "application/json")
    }

    @Test func encodesGETParametersInTheQueryWithClientDefaults() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "São Paulo")).value
        let sent = try #require(stub.requests.first)
        #expect(sent.url == "https://api.example.com/v1/weather?app_version=2.1.0&city=S%C3%A3o%20Paulo")
        #expect(sent.head.method == .get)
        #expect(sent.head.headerFields[.accept] == "application/json")
        #expect(sent.head.headerFields[.authorization] == "Bearer token-1")
        #expect(sent.body == nil)
    }

    @Test func encodesArraysAndNestedDictionariesByTheDocumentedConvention() async throws {
        let (stub, configuration) = stubbed()
        let form = WeatherForm.search(tags: ["rain", "wind"], filter: ["min": 5, "unit": "c"])
        _ = try await Screen(clientConfiguration: configuration).request(form).value
        let query = try #require(stub.requests.first?.url.split(separator: "?").last)
        #expect(query == "app_version=2.1.0&filter%5Bmin%5D=5&filter%5Bunit%5D=c&tag%5B%5D=rain&tag%5B%5D=wind")
    }

    @Test func encodesPOSTParametersAsJSONAndAddsPerFormHeaders() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(
            WeatherForm.report(city: "Oslo", temperature: -3)
        ).value
        let sent = try #require(stub.requests.first)
        #expect(sent.head.method == .post)
        #expect(sent.head.headerFields[.contentType] == "application/json")
        #expect(sent.head.headerFields[HTTPField.Name("X-Report")!] == "1")
        let body = try #require(sent.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["city"] as? String == "Oslo")
        #expect(json["temperature"] as? Int == -3)
        #expect(json["app_version"] as? String == "2.1.0")
    }

    @Test func encodesFormURLEncodedBodies() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(FormEncodedLogin(user: "ada lovelace")).value
        let sent = try #require(stub.requests.first)
        #expect(sent.head.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(sent.body == Data("app_version=2.1.0&remember=true&user=ada%20lovelace".utf8))
    }

    @Test func encodesAnEncodableBodyAsJSONAndParametersInTheQuery() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(
            UpdateProfile(profile: Profile(name: "Ada", age: 36))
        ).value
        let sent = try #require(stub.requests.first)
        #expect(sent.url == "https://api.example.com/v1/profile?app_version=2.1.0&v=2")
        let body = try #require(sent.body)
        #expect(try JSONDecoder().decode(Profile.self, from: body) == Profile(name: "Ada", age: 36))
    }

    @Test func refusesParametersThatCannotBeEncoded() async throws {
        struct Opaque: Sendable {}
        struct Bad: RequestFormable {
            var path: String { "/x" }
            var parameters: Parameters { ["thing": Opaque()] }
        }
        let (_, configuration) = stubbed()
        let result = await Screen(clientConfiguration: configuration).request(Bad()).result
        let error = try #require(result.failure as? FormError)
        #expect(error.category == .invalidParameters)
        #expect(error.message.contains("thing"))
    }
}
