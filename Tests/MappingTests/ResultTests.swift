import Foundation
import HTTPTypes
import Mapping
import Testing

@Suite struct ListPageTests {
    let decoder = ResponseDecoder()
    let days = #"[{"conditions":"Sunny","day":"Monday","temperature":20}]"#

    @Test func readsItemsAndTheNextCursorWithTheDefaultLayout() throws {
        let body = #"{"items":\#(days),"next_cursor":"abc","has_more":true}"#
        let page = try decoder.list(Day.self, from: response(body))
        #expect(page.items.map(\.day) == ["Monday"])
        #expect(page.nextCursor == "abc")
        #expect(page.hasMore)
    }

    @Test(arguments: [
        (#""next_cursor":null"#, nil as String?, false),
        (#""next_cursor":"""#, nil, false),
        (#""next_cursor":3"#, "3", true),
        (#""next_cursor":"abc","has_more":false"#, "abc", false),
        (#""has_more":1"#, nil, true),
        (#""has_more":"true""#, nil, true),
    ])
    func hasMoreFollowsTheFlagOrElseTheCursor(fields: String, cursor: String?, hasMore: Bool) throws {
        let body = #"{"items":\#(days),\#(fields)}"#
        let page = try decoder.list(Day.self, from: response(body))
        #expect(page.nextCursor == cursor)
        #expect(page.hasMore == hasMore)
    }

    @Test func theLayoutIsConfigurable() throws {
        let body = #"{"results":{"days":\#(days)},"paging":{"next":"p2"}}"#
        let layout = ListLayout(items: "results.days", cursor: "paging.next", hasMore: nil)
        let page = try decoder.list(Day.self, from: Data(body.utf8), layout: layout)
        #expect(page == ListPage(items: [Day(conditions: "Sunny", day: "Monday", temperature: 20)], nextCursor: "p2"))
    }

    @Test func aBareArrayIsOneWholePage() throws {
        let page = try decoder.list(Day.self, from: response(try Fixture.array.data()), layout: .init(items: .root))
        #expect(page.items == Fixture.toronto.threeDayForecast)
        #expect(!page.hasMore)
    }

    @Test func readsAListInsideAnEnvelope() throws {
        let body = enveloped(#"{"items":\#(days),"next_cursor":"n"}"#)
        let page = try decoder.list(Day.self, from: response(body), in: .envelope)
        #expect(page.items.count == 1)
        #expect(page.nextCursor == "n")
        #expect(throws: BusinessError.self) {
            try decoder.list(Day.self, from: response(enveloped("null", code: "500")), in: .envelope)
        }
    }

    @Test func missingItemsAreAnError() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.list(Day.self, from: response(#"{"data":[]}"#))
        }
        #expect(error.category == .pathNotFound)
        #expect(error.codingPath == "items")
    }
}

@Suite struct TextAndBytesTests {
    let decoder = ResponseDecoder()

    @Test func textIsUTF8WhenTheContentTypeNamesNoCharset() throws {
        let text = try decoder.string(from: response("Café ☀︎", contentType: "text/plain"))
        #expect(text == "Café ☀︎")
    }

    @Test(arguments: [
        ("text/plain; charset=ISO-8859-1", String.Encoding.isoLatin1),
        ("text/plain; charset=\"windows-1252\"", .windowsCP1252),
        ("text/plain;charset=utf-16le", .utf16LittleEndian),
        ("text/plain; Charset=UTF-8", .utf8),
    ])
    func textIsReadInTheCharsetOfTheContentType(contentType: String, encoding: String.Encoding) throws {
        let bytes = try #require("Crème brûlée".data(using: encoding))
        let text = try decoder.string(from: response(bytes, contentType: contentType))
        #expect(text == "Crème brûlée")
    }

    @Test func rawBytesTakeAnExplicitCharset() throws {
        let bytes = try #require("Zürich".data(using: .isoLatin1))
        #expect(try decoder.string(from: bytes, charset: "ISO-8859-1") == "Zürich")
        #expect(try decoder.string(from: Data()) == "")
    }

    @Test func anUnknownCharsetAndInvalidBytesAreReported() throws {
        let unknown = try #require(throws: MappingError.self) {
            try decoder.string(from: response("x", contentType: "text/plain; charset=klingon"))
        }
        #expect(unknown.category == .unsupportedCharset)
        #expect(unknown.message.contains("\"klingon\""))

        let invalid = try #require(throws: MappingError.self) {
            try decoder.string(
                from: response(Data([0x66, 0xFF, 0xFE, 0x6F]), contentType: "text/plain; charset=utf-8"))
        }
        #expect(invalid.category == .undecodableText)
    }

    @Test func bytesAreTheBodyOnceTheStatusIsAccepted() throws {
        let body = Data([0, 1, 2, 3])
        #expect(try decoder.bytes(from: response(body, contentType: "application/octet-stream")) == body)
        let error = try #require(throws: MappingError.self) {
            try decoder.bytes(from: response(body, status: .internalServerError))
        }
        #expect(error.category == .unacceptableStatus)
        #expect(error.excerpt == "<4 bytes that are not text>")
    }
}

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

@Suite struct ErrorableTests {
    struct WeatherError: JSONErrorable, Equatable {
        static let keyPath: JSONKeyPath = "error"
        var code: BusinessCode?
        var message: String?
        var successCodes: Set<BusinessCode> { ["OK"] }
    }

    struct RootError: JSONErrorable {
        var code: BusinessCode?
        var message: String?
    }

    @Test func aPlainStringIsAFailureMessageWithoutCodes() {
        let error: any Errorable = "The network connection was lost."
        #expect(error.message == "The network connection was lost.")
        #expect(error.code == nil)
        #expect(error.successCodes.isEmpty)
        #expect(error.isFailure)
    }

    @Test func aServerErrorIsReadAtItsKeyPathWhateverTheStatus() throws {
        // Given a 400 whose body describes the error under `error`
        let body = #"{"error":{"code":"E42","message":"Unknown city"}}"#
        let decoder = ResponseDecoder()

        // When the error type is read
        let error = try #require(decoder.decodeErrorable(WeatherError.self, from: response(body, status: .badRequest)))

        // Then it carries the server's code and message, and is a failure
        #expect(error == WeatherError(code: "E42", message: "Unknown city"))
        #expect(error.isFailure)
    }

    @Test(arguments: [
        (#"{"code":200,"message":"ok"}"#, false),
        (#"{"code":"200"}"#, false),
        (#"{"code":500,"message":"down"}"#, true),
        (#"{"message":"no code"}"#, false),
    ])
    func isFailureComparesTheCodeWithTheSuccessCodes(body: String, isFailure: Bool) throws {
        let error = try #require(ResponseDecoder().decodeErrorable(RootError.self, from: Data(body.utf8)))
        #expect(error.isFailure == isFailure)
    }

    @Test(arguments: ["", "<html></html>", "[1,2]"])
    func aBodyWithoutTheErrorGivesNil(body: String) {
        #expect(ResponseDecoder().decodeErrorable(WeatherError.self, from: response(body)) == nil)
    }
}
