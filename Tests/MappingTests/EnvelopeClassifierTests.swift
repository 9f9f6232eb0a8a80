import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport

@testable import Mapping

/// `EnvelopeClassifier` reads what an envelope's code means to a client, and a decoder of the
/// same format checks the envelope from what it read instead of reading the body again.
///
/// Checked to fail: with the reading ignored by `readEnvelope`, the two "from the reading" rows
/// read the body and get its code instead; with the body comparison removed from
/// `EnvelopeReading.matches`, "a body rewritten since is read again" throws the stale failure.
@Suite struct EnvelopeClassifierTests {
    static func envelope(code: String, message: String = "m", data: String = "null") -> Data {
        Data(#"{"code":\#(code),"message":"\#(message)","data":\#(data)}"#.utf8)
    }

    static let ok = HTTPResponse(status: .ok)

    @Test(
        arguments: [
            ("200", ResponseClassification.Verdict.success),
            ("404", .failure),
            ("5031", .retryable),
            (#""5031""#, .retryable),
            ("401", .credentialExpired),
        ] as [(String, ResponseClassification.Verdict)])
    func readsWhatTheCodeMeans(code: String, verdict: ResponseClassification.Verdict) throws {
        let classifier = EnvelopeClassifier(retryableCodes: [5031, 401], expiredCodes: [401])
        let classification = try #require(
            classifier.classify(Self.ok, body: Self.envelope(code: code, message: "busy")))
        #expect(classification.verdict == verdict)
        #expect(classification.code == code.replacingOccurrences(of: "\"", with: ""))
        #expect(classification.message == "busy")
    }

    @Test(arguments: ["", "not json", #"{"message":"no code"}"#, "[1, 2]"])
    func aBodyThatIsNotAnEnvelopeHasNoClassification(body: String) {
        #expect(EnvelopeClassifier(retryableCodes: [5031]).classify(Self.ok, body: Data(body.utf8)) == nil)
    }

    @Test func readsTheFormatsOwnShape() throws {
        let shop = StandardEnvelope(codePath: "status", messagePath: "msg", successCodes: [0])
        let classifier = EnvelopeClassifier(envelope: shop, retryableCodes: ["BUSY"])
        let busy = try #require(
            classifier.classify(Self.ok, body: Data(#"{"status":"BUSY","msg":"later","data":null}"#.utf8)))
        #expect(busy.verdict == .retryable)
        #expect(busy.reason == "code BUSY (later)")
        let done = try #require(classifier.classify(Self.ok, body: Data(#"{"status":0,"data":{}}"#.utf8)))
        #expect(done.verdict == .success)
    }

    // MARK: - Reuse by the decoder

    /// A response whose classification carries `reading` instead of what its body says.
    static func response(_ body: Data, reading: EnvelopeReading) -> DataResponse {
        var response = DataResponse(head: ok, body: body, url: "http://h/x")
        response.classification = ResponseClassification(verdict: .failure, code: "0", reading: reading)
        return response
    }

    /// A reading of `body` by the standard format that found `code` and, for a failure, `data`.
    static func reading(of body: Data, code: BusinessCode, failureData: JSONValue?? = nil) -> EnvelopeReading {
        var reading = EnvelopeReading(body: body, format: StandardEnvelope(), options: .default)
        reading.head = EnvelopeHead(code: code, message: "from the reading")
        if let failureData { reading.failure = EnvelopeReading.Failure(data: failureData) }
        return reading
    }

    @Test func aFailureIsThrownFromTheReading() {
        // Given a body whose envelope says 200, but a reading of it that found a failure
        let body = Self.envelope(code: "200")
        let response = Self.response(body, reading: Self.reading(of: body, code: 404, failureData: .some(["a": 1])))

        // Then the decoder throws the reading's failure without reading the body
        let error = #expect(throws: BusinessError.self) {
            try ResponseDecoder().decodeEnvelope(Int.self, from: response)
        }
        #expect(error?.code == 404)
        #expect(error?.serverMessage == "from the reading")
        #expect(error?.data == ["a": 1])
        #expect(error?.url == "http://h/x")
    }

    @Test func aSuccessHeadComesFromTheReading() throws {
        let body = Self.envelope(code: "200", message: "from the body")
        let response = Self.response(body, reading: Self.reading(of: body, code: 200))
        #expect(try ResponseDecoder().success(from: response).message == "from the reading")
        // A payload still needs the body.
        let decoded = try ResponseDecoder().decodeEnvelope(JSONValue.self, from: response)
        #expect(decoded == .null)
    }

    @Test func aBodyRewrittenSinceIsReadAgain() throws {
        // Given a reading of a failure, and the body changed afterwards (a plugin rewrote it)
        let failing = Self.envelope(code: "404")
        var response = Self.response(failing, reading: Self.reading(of: failing, code: 404, failureData: .some(nil)))
        response.body = Self.envelope(code: "200", message: "rewritten")

        // Then the decoder reads the new body
        #expect(try ResponseDecoder().success(from: response).message == "rewritten")
    }

    @Test func anotherShapeOrKeyStrategyReadsTheBodyAgain() throws {
        let body = Data(#"{"code":200,"message":"from the body","status":404,"data":null}"#.utf8)
        let response = Self.response(body, reading: Self.reading(of: body, code: 404, failureData: .some(nil)))
        let otherShape = ResponseDecoder(envelope: StandardEnvelope(codePath: "status", successCodes: [404]))
        #expect(try otherShape.success(from: response).message == "from the body")
        var snakeCase = DecodingOptions()
        snakeCase.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try ResponseDecoder(options: snakeCase).success(from: response).message == "from the body")
    }

    @Test func theClassifiersReadingGivesWhatTheBodyGives() throws {
        // Given a failure envelope classified as a retry policy's classifier does
        let body = Self.envelope(code: "404", message: "Unknown city: Atlantis", data: #"{"city":"Atlantis"}"#)
        var response = DataResponse(head: Self.ok, body: body, url: "http://h/x")
        response.classification = EnvelopeClassifier().classify(Self.ok, body: body)

        // Then the error is the one the body alone gives, routed once
        let routed = LockedRecorder<BusinessCode>()
        let decoder = ResponseDecoder(envelope: StandardEnvelope(routes: [404: { routed.append($0.code) }]))
        let fromReading = #expect(throws: BusinessError.self) { try decoder.decodeEnvelope(Int.self, from: response) }
        let fromBody = #expect(throws: BusinessError.self) { try decoder.decodeEnvelope(Int.self, from: body) }
        #expect(fromReading?.code == fromBody?.code)
        #expect(fromReading?.serverMessage == fromBody?.serverMessage)
        #expect(fromReading?.data == fromBody?.data)
        #expect(routed.all == [404, 404])
    }
}
