import Foundation
import Testing
import Transport

@Suite struct BusinessCodeTests {
    @Test(arguments: [
        (BusinessCode(200), BusinessCode("200"), true),
        (BusinessCode("0200"), BusinessCode(200), true),
        (BusinessCode("OK"), BusinessCode("OK"), true),
        (BusinessCode("OK"), BusinessCode("ok"), false),
        (BusinessCode(200), BusinessCode(201), false),
    ])
    func codesCompareAsIntegersWhenBothAreIntegers(left: BusinessCode, right: BusinessCode, equal: Bool) {
        #expect((left == right) == equal)
        if equal { #expect(left.hashValue == right.hashValue) }
    }

    @Test func aSetOfCodesMatchesEitherSpelling() {
        let successCodes: Set<BusinessCode> = [200, "OK"]
        #expect(successCodes.contains("200"))
        #expect(successCodes.contains(BusinessCode("OK")))
        #expect(!successCodes.contains(0))
    }

    @Test func decodesNumbersAndStringsAndRefusesOtherValues() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(BusinessCode.self, from: Data("200".utf8)).rawValue == "200")
        #expect(try decoder.decode(BusinessCode.self, from: Data(#""OK""#.utf8)).rawValue == "OK")
        #expect(throws: DecodingError.self) { try decoder.decode(BusinessCode.self, from: Data("true".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(BusinessCode.self, from: Data("2.5".utf8)) }
    }

    @Test func encodesAsItWasRead() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(BusinessCode(200)), as: UTF8.self) == "200")
        #expect(String(decoding: try encoder.encode(BusinessCode("200")), as: UTF8.self) == #""200""#)
    }
}
