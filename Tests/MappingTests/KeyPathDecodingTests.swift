import Foundation
import Mapping
import TestSupport
import Testing

@Suite struct KeyPathDecodingTests {
    let decoder = ResponseDecoder()

    @Test func decodesTheForecastAtTheTopLevel() throws {
        // Given the forecast object at the top level
        let body = try Fixture.topLevel.data()

        // When it is decoded with the empty key path
        let forecast = try decoder.decode(Forecast.self, from: response(body))

        // Then it is the whole forecast
        #expect(forecast == Forecast.toronto)
    }

    @Test func decodesTheForecastNestedUnderData() throws {
        let forecast = try decoder.decode(Forecast.self, from: response(try Fixture.keyPath.data()), at: "data")
        #expect(forecast == Forecast.toronto)
    }

    @Test func decodesTheListOfDaysAtANestedKeyPath() throws {
        let days = try decoder.decode(
            [Day].self, from: response(try Fixture.keyPath.data()), at: "data.three_day_forecast")
        #expect(days == Forecast.toronto.threeDayForecast)
    }

    @Test func decodesABareArray() throws {
        let days = try decoder.decode([Day].self, from: response(try Fixture.array.data()))
        #expect(days == Forecast.toronto.threeDayForecast)
    }

    @Test func decodesRawDataAsWellAsResponses() throws {
        let days = try decoder.decode([Day].self, from: try Fixture.topLevel.data(), at: "three_day_forecast")
        #expect(days.map(\.day) == ["Monday", "Tuesday", "Wednesday"])
    }

    @Test(arguments: [
        ("data.three_day_forecast.1.conditions", "Showers"),
        ("data.three_day_forecast.2.day", "Wednesday"),
        ("data.location", "Toronto, Canada"),
    ])
    func followsKeysAndIndicesToAString(path: String, expected: String) throws {
        let value = try decoder.decode(String.self, from: response(try Fixture.keyPath.data()), at: JSONKeyPath(path))
        #expect(value == expected)
    }

    @Test(arguments: [
        (Fixture.array, "1.temperature", 22),
        (Fixture.topLevel, "three_day_forecast.0.temperature", 20),
        (Fixture.keyPath, "data.three_day_forecast.2.temperature", 28),
    ])
    func followsAKeyPathInEveryShape(fixture: Fixture, path: String, temperature: Int) throws {
        let value = try decoder.decode(Int.self, from: response(try fixture.data()), at: JSONKeyPath(path))
        #expect(value == temperature)
    }

    @Test func decodesInPlaceSoTheModelSeesItsPathInTheDocument() throws {
        // Given a model that records the coding path it is decoded at
        struct Recorder: Decodable {
            var path: [String]
            init(from decoder: any Decoder) throws {
                path = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            }
        }

        // When it is decoded at a key path
        let recorder = try decoder.decode(
            Recorder.self,
            from: response(try Fixture.keyPath.data()),
            at: "data.three_day_forecast.1"
        )

        // Then it was decoded inside the one parse of the whole body, not from a copy
        #expect(recorder.path == ["data", "three_day_forecast", "1"])
    }

    @Test func decodesOneElementOfAnArrayAsAModel() throws {
        let day = try decoder.decode(
            Day.self, from: response(try Fixture.keyPath.data()), at: "data.three_day_forecast.1")
        #expect(day == Day(conditions: "Showers", day: "Tuesday", temperature: 22))
    }

    @Test func decodesAScalarDocument() throws {
        #expect(try decoder.decode(Int.self, from: response("42")) == 42)
        #expect(try decoder.decode(String.self, from: response(#""hello""#)) == "hello")
    }

    @Test func anAbsentLastKeyIsNilForAnOptional() throws {
        // Given a forecast without a `warnings` key
        let body = try Fixture.keyPath.data()

        // When an optional is decoded there, and at a key under a null
        let warnings = try decoder.decode([String]?.self, from: response(body), at: "data.warnings")
        let nested = try decoder.decode(String?.self, from: response(#"{"data":null}"#), at: "data.location")

        // Then both are nil rather than errors
        #expect(warnings == nil)
        #expect(nested == nil)
    }

    @Test func aDigitKeyOfAnObjectIsAKey() throws {
        let value = try decoder.decode(String.self, from: response(#"{"items":{"0":"zero"}}"#), at: "items.0")
        #expect(value == "zero")
    }

    @Test func aKeyWithADotIsReachedWithComponents() throws {
        let path = JSONKeyPath(components: ["weather.v2", "city"])
        let value = try decoder.decode(String.self, from: response(#"{"weather.v2":{"city":"Oslo"}}"#), at: path)
        #expect(value == "Oslo")
    }

    @Test func keyPathsAreWrittenAsTheJSONSpellsThemUnderSnakeCaseConversion() throws {
        // Given a decoder that converts keys from snake case, and a model without CodingKeys
        struct Plain: Decodable, Equatable {
            var location: String
            var threeDayForecast: [Day]
        }
        let snake = ResponseDecoder(options: DecodingOptions(keyDecodingStrategy: .convertFromSnakeCase))

        // When a key path names the JSON's own keys
        let forecast = try snake.decode(Plain.self, from: response(try Fixture.keyPath.data()), at: "data")
        let days = try snake.decode(
            [Day].self, from: response(try Fixture.keyPath.data()), at: "data.three_day_forecast")

        // Then both find their values
        #expect(forecast.threeDayForecast == Forecast.toronto.threeDayForecast)
        #expect(days.count == 3)
    }

    @Test func userInfoReachesTheModel() throws {
        struct Unit: Decodable {
            var symbol: String
            init(from decoder: any Decoder) throws {
                let key = try #require(CodingUserInfoKey(rawValue: "unit"))
                symbol = decoder.userInfo[key] as? String ?? "?"
            }
        }
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        let celsius = ResponseDecoder(options: DecodingOptions(userInfo: [key: "°C"]))
        #expect(try celsius.decode(Unit.self, from: response(try Fixture.keyPath.data()), at: "data").symbol == "°C")
    }

    @Test func datesAreISO8601ByDefaultEvenAtAKeyPath() throws {
        let body =
            #"{"data":{"issued":"2024-05-01T12:00:00Z","days":["2024-05-02T00:00:00Z","2024-05-02T02:00:00.25+02:00"]}}"#
        let issued = try decoder.decode(Date.self, from: response(body), at: "data.issued")
        let days = try decoder.decode([Date].self, from: response(body), at: "data.days")
        #expect(issued == Date(timeIntervalSince1970: 1_714_564_800))
        // Offsets are applied and fractional seconds kept, not truncated.
        #expect(days == [Date(timeIntervalSince1970: 1_714_608_000), Date(timeIntervalSince1970: 1_714_608_000.25)])
    }

    @Test func theDateStrategyIsConfigurable() throws {
        let seconds = ResponseDecoder(options: DecodingOptions(dateDecodingStrategy: .secondsSince1970))
        let date = try seconds.decode(Date.self, from: response(#"{"issued":1714564800}"#), at: "issued")
        #expect(date == Date(timeIntervalSince1970: 1_714_564_800))
        #expect(
            try seconds.decode(Date.self, from: response("1714564800")) == Date(timeIntervalSince1970: 1_714_564_800))
    }
}
