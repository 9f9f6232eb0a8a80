import Downloads
import HTTPTypes
import Testing
import Transport

@Suite struct DownloadValidatorTests {
    @Test func aStrongEntityTagIsTheValidator() {
        let validator = DownloadValidator(response: head(200, [.eTag: "\"v1\"", .lastModified: "x"]))
        #expect(validator == .entityTag("\"v1\""))
        #expect(validator?.ifRangeValue == "\"v1\"")
    }

    @Test func aWeakEntityTagMeansNoValidatorEvenWithAStrongLastModified() {
        let response = head(
            200,
            [
                .eTag: "W/\"v1\"", .lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                .date: "Tue, 02 Jan 2024 00:00:00 GMT",
            ])
        #expect(DownloadValidator(response: response) == nil)
    }

    @Test func lastModifiedIsTheValidatorWhenTheDateIsAtLeastASecondLater() {
        let response = head(
            200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", .date: "Mon, 01 Jan 2024 00:00:01 GMT"])
        #expect(DownloadValidator(response: response) == .lastModified("Mon, 01 Jan 2024 00:00:00 GMT"))
    }

    @Test(arguments: [
        "Mon, 01 Jan 2024 00:00:00 GMT",  // the same second: two versions could share it
        "Sun, 31 Dec 2023 23:59:59 GMT",  // earlier
        "Monday, 01-Jan-24 00:00:05 GMT",  // an obsolete form: not read, so not provably strong
    ])
    func lastModifiedThatIsNotProvablyStrongIsRefused(date: String) {
        let response = head(200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", .date: date])
        #expect(DownloadValidator(response: response) == nil)
    }

    @Test func lastModifiedWithoutADateIsRefused() {
        #expect(DownloadValidator(response: head(200, [.lastModified: "Mon, 01 Jan 2024 00:00:00 GMT"])) == nil)
    }

    @Test(arguments: ["\"\"", "\"a b\"", "abc", "\"abc", "W/\"abc\""])
    func onlyWellFormedStrongTagsCount(tag: String) {
        let validator = DownloadValidator(response: head(200, [.eTag: tag]))
        #expect(validator == (tag == "\"\"" ? .entityTag("\"\"") : nil))
    }

    @Test func aResponseContradictsAValidatorOnlyWithADifferentValueOfTheSameKind() {
        let tag = DownloadValidator.entityTag("\"v1\"")
        #expect(tag.isConsistent(with: head(206, [.eTag: "\"v1\""])))
        #expect(tag.isConsistent(with: head(206)))
        #expect(!tag.isConsistent(with: head(206, [.eTag: "\"v2\""])))
        let date = DownloadValidator.lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(date.isConsistent(with: head(206, [.eTag: "\"v2\""])))
        #expect(!date.isConsistent(with: head(206, [.lastModified: "Tue, 02 Jan 2024 00:00:00 GMT"])))
    }
}
