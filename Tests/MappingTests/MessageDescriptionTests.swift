import HTTPTypes
import Mapping
import Testing
import Transport

/// How Mapping's errors and values describe themselves to a message catalog, which reads them
/// through Transport's `MessageDescribable` without importing Mapping.
@Suite struct MessageDescriptionTests {
    @Test func aRefusedStatusIsDescribedByTheHTTPStatusEntryWithItsCode() {
        let error = MappingError(.unacceptableStatus, message: "HTTP 404 for /weather", status: .notFound)
        #expect(error.messageKeys == ["httpStatus"])
        #expect(error.messageValues == ["status": "404"])
        #expect(error.businessCode == nil)
    }

    @Test func aRefusedStatusWithoutAStatusIsAnUnreadableAnswer() {
        let error = MappingError(.unacceptableStatus, message: "no status")
        #expect(error.messageKeys == ["mapping.unacceptableStatus", "mapping"])
        #expect(error.messageValues.isEmpty)
    }

    @Test(arguments: [MappingError.Category.invalidJSON, .typeMismatch, .init("madeUpHere")])
    func otherMappingErrorsNameTheirCategoryThenTheGeneralEntry(category: MappingError.Category) {
        let error = MappingError(category, message: "detail", status: .ok)
        #expect(error.messageKeys == ["mapping.\(category.name)", "mapping"])
        #expect(error.isFailure)
    }

    @Test func aBusinessErrorIsDescribedByItsCodeAndTheServersOwnWords() {
        let error = BusinessError(code: "E42", serverMessage: "Unknown city")
        #expect(error.businessCode == "E42")
        #expect(error.businessMessage == "Unknown city")
        #expect(error.messageKeys.isEmpty)
        #expect(BusinessError(code: 500).businessMessage == nil)
    }

    @Test func anEnvelopeHeadIsDescribedByItsCodeAndMessage() {
        let head = EnvelopeHead(code: 200, message: "Saved.")
        #expect(head.businessCode == 200)
        #expect(head.businessMessage == "Saved.")
    }

    struct WeatherError: JSONErrorable {
        var code: BusinessCode?
        var message: String?
        var successCodes: Set<BusinessCode> { ["OK"] }
    }

    @Test func anErrorableIsDescribedByItsCodeMessageAndOwnSuccessCodes() {
        let failure = WeatherError(code: "E42", message: "Unknown city")
        let success = WeatherError(code: "OK", message: "Fine")
        let describedFailure: any MessageDescribable = failure
        let describedSuccess: any MessageDescribable = success
        #expect(describedFailure.businessCode == "E42")
        #expect(describedFailure.businessMessage == "Unknown city")
        #expect(describedFailure.isFailure)
        #expect(!describedSuccess.isFailure)
        let plain: any MessageDescribable = "The network connection was lost."
        #expect(plain.businessMessage == "The network connection was lost.")
        #expect(plain.businessCode == nil)
        #expect(plain.isFailure)
    }
}
