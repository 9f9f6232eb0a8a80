import Foundation
import HTTPTypes
import Mapping
import TestSupport
import Testing
import Transport

@Suite struct MappingErrorTests {
    let decoder = ResponseDecoder()

    /// The keypath fixture with the second day's `temperature` replaced by `replacement`.
    private func forecastWithSecondTemperature(_ replacement: String) throws -> String {
        let text = try Fixture.keyPath.text()
        let range = try #require(text.range(of: "\"temperature\": 22"))
        return text.replacingCharacters(in: range, with: replacement)
    }

    @Test func aMissingKeyNamesTheKeyThePathAndWhatWasThere() throws {
        // Given a forecast whose second day has no temperature
        let body = try forecastWithSecondTemperature(#""wind": 3"#)

        // When it is decoded
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(body), at: "data")
        }

        // Then the error says which key is missing, where, and what the object holds
        #expect(error.category == .keyNotFound)
        #expect(error.codingPath == "data.three_day_forecast[1].temperature")
        #expect(error.expected == "key `temperature`")
        #expect(error.found == "an object with keys `conditions`, `day`, `wind`")
        #expect(error.url == weatherURL)
        #expect(error.status == .ok)
        #expect(error.message.contains("`data.three_day_forecast[1]`"))
        #expect(error.message.contains(weatherURL))
    }

    @Test func aTypeMismatchNamesThePathTheExpectedTypeAndTheValueFound() throws {
        // Given a forecast whose second temperature is a string
        let body = try forecastWithSecondTemperature(#""temperature": "warm""#)

        // When it is decoded
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(body), at: "data")
        }

        // Then the error names the coding path, Int, the string, and shows the body's start
        #expect(error.category == .typeMismatch)
        #expect(error.codingPath == "data.three_day_forecast[1].temperature")
        #expect(error.expected == "Int")
        #expect(error.found == #"a string "warm""#)
        #expect(
            error.message.hasPrefix(
                #"Expected Int at `data.three_day_forecast[1].temperature` but found a string "warm""#))
        let excerpt = try #require(error.excerpt)
        #expect(excerpt.hasPrefix(#"{ "data": { "location": "Toronto, Canada","#))
        #expect(excerpt.count <= 200)
        #expect(error.description.contains("[body: "))
    }

    @Test func aTypeMismatchAtAKeyPathKeepsTheWholePath() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(
                Int.self, from: response(try Fixture.keyPath.data()), at: "data.three_day_forecast.1.conditions")
        }
        #expect(error.codingPath == "data.three_day_forecast[1].conditions")
        #expect(error.found == #"a string "Showers""#)
    }

    @Test func aModelOfTheWrongShapeAtTheTopLevelSaysSo() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(try Fixture.array.data()))
        }
        #expect(error.category == .typeMismatch)
        #expect(error.codingPath == nil)
        #expect(error.expected == "an object")
        #expect(error.found == "an array of 3 elements")
        #expect(error.message.contains("at the top level"))
    }

    @Test func aNullWhereAValueIsNeededIsValueNotFound() throws {
        let body = try forecastWithSecondTemperature(#""temperature": null"#)
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(body), at: "data")
        }
        #expect(error.category == .valueNotFound)
        #expect(error.codingPath == "data.three_day_forecast[1].temperature")
        #expect(error.found == "null")
    }

    @Test func aBadDateIsDataCorruptedWithTheValueFound() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Date.self, from: response(#"{"data":{"issued":"yesterday"}}"#), at: "data.issued")
        }
        #expect(error.category == .dataCorrupted)
        #expect(error.codingPath == "data.issued")
        #expect(error.found == #"a string "yesterday""#)
    }

    @Test(arguments: [
        (
            "data.forecast", "data.forecast",
            "`data` has no key `forecast` (it has keys `location`, `three_day_forecast`)"
        ),
        ("data.three_day_forecast.5", "data.three_day_forecast[5]", "is an array of 3 elements, so it has no index 5"),
        ("data.location.city", "data.location.city", "is a string \"Toronto, Canada\", so it has no `city`"),
        ("weather", "weather", "the document has no key `weather`"),
    ])
    func aKeyPathThatLeadsNowhereSaysWhereItStopped(path: String, codingPath: String, explanation: String) throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(String.self, from: response(try Fixture.keyPath.data()), at: JSONKeyPath(path))
        }
        #expect(error.category == .pathNotFound)
        #expect(error.codingPath == codingPath)
        #expect(error.message.contains(explanation))
    }

    @Test func aNullOnTheWayIsReported() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(String.self, from: response(#"{"data":null}"#), at: "data.location")
        }
        #expect(error.category == .pathNotFound)
        #expect(error.message.contains("`data` is null"))
    }

    @Test(arguments: [#"{"data": {"location": "Toronto""#, "{not json}", "Toronto"])
    func invalidJSONIsReportedWithAnExcerpt(body: String) throws {
        let error = try #require(throws: MappingError.self) { try decoder.decode(Forecast.self, from: response(body)) }
        #expect(error.category == .invalidJSON)
        #expect(error.message.contains("not valid JSON"))
        #expect(error.excerpt == body)
    }

    @Test(arguments: ["", "  \n "])
    func anEmptyBodyIsReportedAsEmpty(body: String) throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(body, status: .noContent))
        }
        #expect(error.category == .emptyBody)
        #expect(error.message.contains("The body is empty in the response from \(weatherURL) (HTTP 204 No Content)"))
        #expect(error.excerpt == nil)
    }

    @Test func anHTMLErrorPageWithARefusedStatusNamesTheStatusAndThePage() throws {
        // Given a proxy's 502 page
        let page = """
            <!DOCTYPE html>
            <html><head><title>502 Bad Gateway</title></head>
            <body><h1>Bad Gateway</h1><p>nginx</p></body></html>
            """

        // When it is decoded
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(page, status: .badGateway, contentType: "text/html"))
        }

        // Then the status and the page are named, not a JSON syntax error
        #expect(error.category == .unacceptableStatus)
        #expect(error.status == .badGateway)
        #expect(error.message.hasPrefix("The server answered 502 Bad Gateway for \(weatherURL)"))
        #expect(error.message.contains(#"with an HTML page titled "502 Bad Gateway""#))
        #expect(error.excerpt?.hasPrefix("<!DOCTYPE html> <html><head>") == true)
    }

    @Test func anHTMLPageWithASuccessStatusIsNotJSON() throws {
        let page = "<html><head><title>Sign in</title></head><body>Please sign in</body></html>"
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(page, contentType: "text/html; charset=utf-8"))
        }
        #expect(error.category == .invalidJSON)
        #expect(
            error.message.contains(
                #"is an HTML page titled "Sign in", not JSON (Content-Type: text/html; charset=utf-8)"#))
    }

    @Test func aRefusedStatusWithAJSONBodySaysWhatTheBodyIs() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Forecast.self, from: response(#"{"error":"not found"}"#, status: .notFound))
        }
        #expect(error.category == .unacceptableStatus)
        #expect(error.message.contains("404 Not Found"))
        #expect(error.message.contains("with a JSON body (an object with keys `error`)"))
    }

    @Test func theStatusPolicyIsConfigurable() throws {
        let lenient = ResponseDecoder(statusPolicy: .any)
        let ranged = ResponseDecoder(statusPolicy: .codes(200...299, 404...404))
        let body = #"{"error":"not found"}"#
        #expect(try lenient.decode(String.self, from: response(body, status: .notFound), at: "error") == "not found")
        #expect(try ranged.decode(String.self, from: response(body, status: .notFound), at: "error") == "not found")
        #expect(throws: MappingError.self) {
            try ranged.decode(String.self, from: response(body, status: .gone), at: "error")
        }
    }

    @Test func secretsNeverReachTheExcerpt() throws {
        // Given a body full of credentials that fails to decode
        let body = """
            {"user": "ada", "password": "hunter2", "token": 12345, "access_token": "at-SECRET",
             "refresh_token": "rt-SECRET", "Authorization": "Bearer abc.def", "client_secret": {"v": "cs-SECRET"},
             "api_key": "ak-SECRET", "note": "call with ?apiKey=qs-SECRET&city=Oslo", "header": "Bearer hdr-SECRET"}
            """

        // When it is decoded as the wrong model
        let error = try #require(throws: MappingError.self) { try decoder.decode([Day].self, from: response(body)) }

        // Then the excerpt keeps the structure and the harmless values, and hides every secret
        let excerpt = try #require(error.excerpt)
        for secret in ["hunter2", "12345", "SECRET", "abc.def"] {
            #expect(!excerpt.contains(secret), "\(secret) leaked into \(excerpt)")
            #expect(!error.description.contains(secret))
        }
        #expect(excerpt.contains(#""user": "ada""#))
        #expect(excerpt.contains(#""password": "<redacted>""#))
        #expect(excerpt.contains(#""token": "<redacted>""#))
        #expect(excerpt.contains(#""client_secret": "<redacted>""#))
        #expect(excerpt.count <= 200)
    }

    @Test func aSecretCutOffByTheExcerptLimitIsStillRedacted() throws {
        let padding = String(repeating: "x", count: 170)
        let body = #"{"note": "\#(padding)", "refresh_token": "rt-0123456789-SECRET-VALUE-THAT-RUNS-PAST-THE-LIMIT"}"#
        let error = try #require(throws: MappingError.self) { try decoder.decode(Int.self, from: response(body)) }
        let excerpt = try #require(error.excerpt)
        #expect(excerpt.count == 200)
        #expect(excerpt.hasSuffix("…"))
        #expect(!excerpt.contains("rt-0"))
    }

    @Test func aFailingValueUnderASecretKeyIsDescribedWithoutItsValue() throws {
        struct Session: Decodable { var token: Int }
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Session.self, from: response(#"{"token":"abc-SECRET"}"#))
        }
        #expect(error.codingPath == "token")
        #expect(error.found == "a string (value redacted)")
        #expect(!error.message.contains("SECRET"))
    }

    @Test func aKeyPathThroughASecretNamesOnlyTheKindOfValue() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(String.self, from: response(#"{"auth":{"token":"tk-SECRET"}}"#), at: "auth.token.value")
        }
        #expect(error.category == .pathNotFound)
        #expect(error.message.contains("`auth.token` is a string (value redacted)"))
        #expect(!error.description.contains("SECRET"))
    }

    @Test func proseThatMentionsABasicPlanIsNotRedacted() throws {
        let body = #"{"plan": "basic plan", "auth": "Basic dXNlcjpwYXNz"}"#
        let error = try #require(throws: MappingError.self) { try decoder.decode(Int.self, from: response(body)) }
        #expect(error.excerpt == #"{"plan": "basic plan", "auth": "Basic <redacted>"}"#)
    }

    @Test func anotherErrorOfAModelIsPassedThrough() throws {
        struct Refusal: Error {}
        struct Picky: Decodable {
            init(from decoder: any Decoder) throws { throw Refusal() }
        }
        #expect(throws: Refusal.self) { try decoder.decode(Picky.self, from: response("{}")) }
    }

    @Test func aRequestHandleShowsTheMappingErrorsMessage() throws {
        let error = try #require(throws: MappingError.self) { try decoder.decode(Forecast.self, from: response("")) }
        #expect(RequestFailure(error).message == error.message)
    }

    @Test func aBadDateInsideAModelNamesItsObject() throws {
        struct Report: Decodable { var issued: Date }
        let error = try #require(throws: MappingError.self) {
            try decoder.decode(Report.self, from: response(#"{"data":{"issued":"yesterday"}}"#), at: "data")
        }
        #expect(error.category == .dataCorrupted)
        #expect(error.codingPath == "data")
        #expect(error.message.contains("The invalid value is one of its members."))
    }

    @Test func categoriesAreOpenAndNamed() {
        let custom = MappingError.Category("schemaViolation")
        #expect(custom.description == "schemaViolation")
        #expect(MappingError.Category.typeMismatch == MappingError.Category("typeMismatch"))
        let error = MappingError(custom, message: "The schema refused the body.")
        #expect(error.description == "schemaViolation: The schema refused the body.")
    }
}
