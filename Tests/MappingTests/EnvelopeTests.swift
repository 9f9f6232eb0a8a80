import Foundation
import HTTPTypes
import Mapping
import TestSupport
import Testing
import Transport

@Suite struct EnvelopeTests {
    let decoder = ResponseDecoder()

    @Test(arguments: ["200", #""200""#])
    func decodesTheDataOfASuccessEnvelopeWhateverTheCodesType(code: String) throws {
        // Given the forecast wrapped in an envelope whose code is a number or a string
        let body = enveloped(try Fixture.topLevel.text(), code: code)

        // When the envelope is decoded
        let forecast = try decoder.decodeEnvelope(Forecast.self, from: response(body))

        // Then the data is the forecast
        #expect(forecast == Forecast.toronto)
    }

    @Test(
        arguments: [
            (#""ok""#, "ok"), ("7", "7"), (#""""#, nil), ("null", nil), ("[1]", nil),
        ] as [(String, String?)])
    func readsTheMessageAsTextWhateverTheServerSent(message: String, expected: String?) throws {
        // Given a success envelope whose message is a string, a number, empty, null or a list
        let body = enveloped("null", message: message)

        // When only its head is read
        let head = try decoder.success(from: Data(body.utf8))

        // Then the message is text when it can be, and nothing otherwise
        #expect(head.message == expected)
        #expect(head.code == 200)
    }

    @Test func readsACodeThatIsMissingOrNotAWholeNumberAsAShapeError() throws {
        // Given envelopes whose code is missing, fractional or an object
        let bodies = [#"{"message":"ok","data":null}"#, #"{"code":200.5,"data":null}"#, #"{"code":{},"data":null}"#]

        // Then each fails with a mapping error, not a success or a crash
        for body in bodies {
            #expect(throws: MappingError.self) { try decoder.success(from: Data(body.utf8)) }
        }
    }

    @Test func decodesAtAKeyPathInsideTheData() throws {
        let body = enveloped(try Fixture.topLevel.text())
        let days = try decoder.decodeEnvelope([Day].self, from: response(body), at: "three_day_forecast")
        let second = try decoder.decode(
            String.self, from: response(body), at: "three_day_forecast.1.day", in: .envelope)
        #expect(days == Forecast.toronto.threeDayForecast)
        #expect(second == "Tuesday")
    }

    @Test func decodesABareArrayAsTheData() throws {
        let body = enveloped(try Fixture.array.text())
        #expect(try decoder.decodeEnvelope([Day].self, from: Data(body.utf8)).count == 3)
    }

    @Test func acceptsAStringSuccessCode() throws {
        let okDecoder = ResponseDecoder(envelope: .standard(successCodes: ["OK"]))
        let body = enveloped(try Fixture.topLevel.text(), code: #""OK""#)
        #expect(try okDecoder.decodeEnvelope(Forecast.self, from: response(body)) == Forecast.toronto)
    }

    @Test(arguments: [
        ("401", BusinessCode(401)),
        (#""401""#, BusinessCode(401)),
        (#""TOKEN_EXPIRED""#, BusinessCode("TOKEN_EXPIRED")),
    ])
    func aFailureCodeBecomesABusinessErrorWithTheCodeAndMessage(code: String, expected: BusinessCode) throws {
        // Given an envelope whose code is not a success code
        let body = enveloped("null", code: code, message: #""token expired""#)

        // When it is decoded
        let error = try #require(throws: BusinessError.self) {
            try decoder.decodeEnvelope(Forecast.self, from: response(body))
        }

        // Then the error carries the code, the server's message, the URL and the status
        #expect(error.code == expected)
        #expect(error.serverMessage == "token expired")
        #expect(error.message == "token expired")
        #expect(error.url == weatherURL)
        #expect(error.status == .ok)
        #expect(error.data == nil)
    }

    @Test func aBusinessErrorKeepsTheEnvelopesDataAndNamesTheCodeWithoutAMessage() throws {
        let body = #"{"code":422,"data":{"fields":["city"]}}"#
        let error = try #require(throws: BusinessError.self) { try decoder.success(from: response(body)) }
        #expect(error.serverMessage == nil)
        #expect(error.message.contains("422"))
        #expect(error.data == ["fields": ["city"]])
    }

    @Test func aRoutedCodeReachesItsHandlerBeforeTheErrorIsThrown() throws {
        // Given an envelope format that routes 401 to a handler
        let routed = PThreadMutex<[BusinessError]>([])
        let envelope = StandardEnvelope(routes: [401: { error in routed.withLock { $0.append(error) } }])
        let routing = ResponseDecoder(envelope: envelope)

        // When a 401 and a 500 envelope are decoded
        let body401 = enveloped("null", code: "401", message: #""token expired""#)
        let body500 = enveloped("null", code: "500", message: #""oops""#)
        let thrown = try #require(throws: BusinessError.self) {
            try routing.decodeEnvelope(Forecast.self, from: response(body401))
        }
        #expect(throws: BusinessError.self) { try routing.decodeEnvelope(Forecast.self, from: response(body500)) }

        // Then only the 401 reached the handler, and it is the error that was thrown
        #expect(routed.withLock { $0 } == [thrown])
    }

    @Test func aRefusedStatusWithAFailureEnvelopeIsRoutedToo() throws {
        let routed = PThreadMutex(0)
        let routing = ResponseDecoder(envelope: .standard(routes: [401: { _ in routed.withLock { $0 += 1 } }]))
        let body = enveloped("null", code: "401", message: #""token expired""#)
        #expect(throws: BusinessError.self) { try routing.success(from: response(body, status: .unauthorized)) }
        #expect(routed.withLock { $0 } == 1)
    }

    @Test func aRequestHandleShowsTheBusinessErrorsMessage() throws {
        let body = enveloped("null", code: "500", message: #""The forecast service is down.""#)
        let error = try #require(throws: BusinessError.self) { try decoder.success(from: response(body)) }
        #expect(RequestFailure(error).message == "The forecast service is down.")
        #expect(error.description == "code 500: The forecast service is down. [url: \(weatherURL)] [HTTP 200 OK]")
    }

    @Test func keyNamesAreConfigurable() throws {
        // Given a server that says status/msg/result
        let envelope = StandardEnvelope(codePath: "status", messagePath: "msg", dataPath: "result", successCodes: [0])
        let custom = ResponseDecoder(envelope: envelope)
        let success = #"{"status":0,"msg":"fine","result":\#(try Fixture.topLevel.text())}"#
        let failure = #"{"status":"7","msg":"city unknown","result":null}"#

        // Then its data decodes, and its failures carry its message
        #expect(try custom.decodeEnvelope(Forecast.self, from: response(success)) == Forecast.toronto)
        let error = try #require(throws: BusinessError.self) { try custom.success(from: response(failure)) }
        #expect(error.code == 7)
        #expect(error.message == "city unknown")
    }

    @Test func aCustomFormatDecidesWhatSuccessIs() throws {
        struct RangeEnvelope: EnvelopeFormat {
            var dataPath: JSONKeyPath { "payload" }
            func isSuccess(_ code: BusinessCode) -> Bool { (200..<300).contains(code.intValue ?? 0) }
        }
        let custom = ResponseDecoder(envelope: RangeEnvelope())
        #expect(try custom.decodeEnvelope(Int.self, from: response(#"{"code":"201","payload":5}"#)) == 5)
        #expect(throws: BusinessError.self) { try custom.decodeEnvelope(Int.self, from: response(#"{"code":300}"#)) }
    }

    @Test func successOnlyChecksTheCodeAndReturnsTheMessage() throws {
        let head = try decoder.success(from: response(#"{"code":200,"message":"Saved","data":"anything"}"#))
        #expect(head == EnvelopeHead(code: 200, message: "Saved"))
        #expect(try decoder.success(from: Data(#"{"code":"200"}"#.utf8)).message == nil)
    }

    @Test func aRefusedStatusWithAFailureEnvelopeIsTheBusinessError() throws {
        // Given a 401 whose body is an envelope
        let body = enveloped("null", code: "40101", message: #""token expired""#)

        // When it is decoded
        let error = try #require(throws: BusinessError.self) {
            try decoder.decodeEnvelope(Forecast.self, from: response(body, status: .unauthorized))
        }

        // Then the envelope's failure wins, with the HTTP status attached
        #expect(error.code == 40101)
        #expect(error.status == .unauthorized)
    }

    @Test func aRefusedStatusWithoutAnEnvelopeIsAMappingError() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decodeEnvelope(Forecast.self, from: response("", status: .serviceUnavailable))
        }
        #expect(error.category == .unacceptableStatus)
        #expect(error.status == .serviceUnavailable)
    }

    @Test func aBodyWithoutACodeIsNotAnEnvelope() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decodeEnvelope(Forecast.self, from: response(try Fixture.keyPath.data()))
        }
        #expect(error.category == .invalidEnvelope)
        #expect(error.message.contains("no `code`"))
        #expect(error.found == "an object with keys `data`")
    }

    @Test func aCodeOfTheWrongTypeIsNotAnEnvelope() throws {
        let error = try #require(throws: MappingError.self) { try decoder.success(from: response(#"{"code":true}"#)) }
        #expect(error.category == .invalidEnvelope)
        #expect(error.found == "the Boolean true")
    }

    @Test func aMissingDataIsAPathError() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.decodeEnvelope(Forecast.self, from: response(#"{"code":200,"message":"ok"}"#))
        }
        #expect(error.category == .pathNotFound)
        #expect(error.codingPath == "data")
    }
}
