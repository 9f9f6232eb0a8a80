import Foundation
import HTTPTypes
import Mapping
import Testing

@Suite struct JSONValueTests {
    let decoder = ResponseDecoder()

    @Test(arguments: Fixture.allCases)
    func aFixtureRoundTripsThroughJSONValue(fixture: Fixture) throws {
        // Given a fixture read as a JSON value
        let value = try decoder.json(from: response(try fixture.data()))

        // When it is encoded and read again
        let encoded = try JSONEncoder().encode(value)
        let again = try decoder.json(from: encoded)

        // Then nothing changed
        #expect(again == value)
    }

    @Test func readsTheForecastWithoutAModel() throws {
        let value = try decoder.json(from: response(try Fixture.keyPath.data()))
        #expect(value["data"]?["location"]?.stringValue == "Toronto, Canada")
        #expect(value["data"]?["three_day_forecast"]?[1]?["conditions"] == "Showers")
        #expect(value[path: "data.three_day_forecast.2.temperature"]?.intValue == 28)
        #expect(value["missing"] == nil)
        let days = try decoder.json(from: response(try Fixture.keyPath.data()), at: "data.three_day_forecast")
        #expect(days.arrayValue?.count == 3)
    }

    @Test func everyKindOfValueIsKept() throws {
        let body = #"{"n":null,"t":true,"i":-7,"d":2.5,"s":"x","a":[1,"y"],"o":{"k":false},"big":9007199254740993}"#
        let value = try decoder.json(from: Data(body.utf8))
        let expected: JSONValue = [
            "n": .null, "t": true, "i": -7, "d": 2.5, "s": "x", "a": [1, "y"], "o": ["k": false],
            "big": .int(9_007_199_254_740_993),
        ]
        #expect(value == expected)
        #expect(value["n"]?.isNull == true)
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["o"]?.objectValue == ["k": false])
        #expect(value["t"]?.boolValue == true)
    }

    @Test func describesItselfAsCompactJSON() {
        let value: JSONValue = ["b": [1, "two\n"], "a": .null]
        #expect(value.description == #"{"a":null,"b":[1,"two\n"]}"#)
    }

    @Test func keysAreKeptAsWrittenWhateverTheKeyStrategy() throws {
        let snake = ResponseDecoder(options: DecodingOptions(keyDecodingStrategy: .convertFromSnakeCase))
        let value = try snake.json(from: response(try Fixture.keyPath.data()), at: "data")
        #expect(value["three_day_forecast"] != nil)
    }
}
