import Testing
import Transport

@Suite struct MessageDescribableTests {
    /// A conformance that states nothing: every requirement keeps its default.
    struct Bare: MessageDescribable {}

    @Test func aConformanceWithNothingOfItsOwnIsAFailureWithNoCodeKeyOrMessage() {
        let bare = Bare()
        #expect(bare.messageKeys.isEmpty)
        #expect(bare.messageValues.isEmpty)
        #expect(bare.businessCode == nil)
        #expect(bare.businessMessage == nil)
        #expect(bare.isFailure)
    }

    @Test(arguments: [TransportError.Category.connectionRefused, .other, .init("carrierPigeonLost")])
    func aTransportErrorNamesItsCategoryThenTheNetwork(category: TransportError.Category) {
        let error = TransportError(category, message: "detail")
        #expect(error.messageKeys == ["transport.\(category.name)", "network"])
        #expect(error.messageValues.isEmpty)
        #expect(error.businessCode == nil)
        #expect(error.isFailure)
    }
}
