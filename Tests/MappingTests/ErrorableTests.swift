import Foundation
import HTTPTypes
import Mapping
import Testing
import Transport

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
