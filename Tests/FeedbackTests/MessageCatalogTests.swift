import Feedback
import HTTPTypes
import Mapping
import Testing
import Transport

@Suite struct MessageCatalogTests {
    static let english = MessageCatalog.english

    /// Every transport category the English catalog has a sentence of its own for.
    static let transportCategories: [TransportError.Category] = [
        .dnsFailure, .connectionRefused, .connectTimeout, .tlsFailure, .stalledTransfer, .deadlineExceeded,
        .connectionReset, .incompleteBody, .emptyReply, .invalidResponse, .tooManyRedirects, .responseTooLarge,
        .invalidURL, .invalidHeader, .invalidBody, .shutDown, .outOfDescriptors,
    ]

    // MARK: - Business errors

    @Test func showsTheServersMessageForABusinessError() throws {
        let error = BusinessError(code: 404, serverMessage: "Unknown city: Atlantis")
        let message = try #require(Self.english.warning(for: error))
        #expect(message.severity == .warning)
        #expect(message.text == "Unknown city: Atlantis")
        #expect(message.code == 404)
        #expect(message.key == nil)
    }

    @Test func prefersTheCatalogsSentenceForACodeOverTheServersMessage() throws {
        var catalog = MessageCatalog.english
        catalog[.business(404)] = "We do not know that city yet."
        let message = try #require(catalog.warning(for: BusinessError(code: 404, serverMessage: "Unknown city")))
        #expect(message.text == "We do not know that city yet.")
        #expect(message.detail == "Unknown city")
        #expect(message.key == .business(404))
    }

    @Test func namesTheCodeWhenTheServerSentNoMessage() throws {
        let message = try #require(Self.english.warning(for: BusinessError(code: 4031)))
        #expect(message.text == "The server refused the request (code 4031).")
    }

    @Test func saysNothingForACodeTheCallerCountsAsSuccess() {
        let error = BusinessError(code: 201, serverMessage: "Created")
        #expect(Self.english.warning(for: error, successCodes: [200, 201]) == nil)
        #expect(Self.english.warning(for: error, successCodes: [200]) != nil)
    }

    @Test func unwrapsARequestFailure() throws {
        let failure = RequestFailure(BusinessError(code: 404, serverMessage: "Unknown city: Atlantis"))
        let message = try #require(Self.english.warning(for: failure))
        #expect(message.text == "Unknown city: Atlantis")
    }

    // MARK: - Transport errors

    @Test(arguments: transportCategories)
    func givesEachTransportCategoryItsSentenceWithTheTransportsMessageAsDetail(
        category: TransportError.Category
    ) throws {
        let error = TransportError(category, message: "curl said something about 127.0.0.1:9")
        let message = try #require(Self.english.warning(for: error))
        let sentence = try #require(Self.english[.transport(category)])
        #expect(message.text == sentence)
        #expect(message.detail == "curl said something about 127.0.0.1:9")
        #expect(message.key == .transport(category))
    }

    @Test(arguments: [
        TransportError.Category.other, .redirectToRefusedScheme, TransportError.Category("carrierPigeonLost"),
    ])
    func fallsBackToTheNetworkSentenceForACategoryWithoutOne(category: TransportError.Category) throws {
        let message = try #require(Self.english.warning(for: TransportError(category, message: "detail")))
        #expect(message.text == "Something went wrong with the network. Try again.")
        #expect(message.key == .network)
    }

    @Test func saysNothingForACancellation() {
        let cancelled = TransportError(.cancelled, message: "The request was cancelled.")
        #expect(Self.english.warning(for: cancelled) == nil)
        #expect(Self.english.warning(for: RequestFailure(cancelled)) == nil)
        #expect(Self.english.warning(for: CancellationError()) == nil)
    }

    // MARK: - Mapping errors

    @Test func namesTheHTTPStatusTheServerRefusedWith() throws {
        let error = MappingError(.unacceptableStatus, message: "HTTP 404 for /weather", status: .notFound)
        let message = try #require(Self.english.warning(for: error))
        #expect(message.text == "The server answered with an error (HTTP 404).")
        #expect(message.detail == "HTTP 404 for /weather")
        #expect(message.key == .httpStatus)
    }

    @Test func saysTheAnswerCouldNotBeReadForOtherMappingErrors() throws {
        let error = MappingError(.invalidJSON, message: "Unexpected character at offset 3")
        let message = try #require(Self.english.warning(for: error))
        #expect(message.text == "The server's answer could not be read.")
        #expect(message.key == .unreadableAnswer)
    }

    @Test func usesTheCatalogsSentenceForAMappingCategoryWhenItHasOne() throws {
        var catalog = MessageCatalog.english
        catalog[MessageKey("mapping.invalidJSON")] = "The weather service sent something that is not JSON."
        let message = try #require(catalog.warning(for: MappingError(.invalidJSON, message: "offset 3")))
        #expect(message.text == "The weather service sent something that is not JSON.")
        #expect(message.detail == "offset 3")
        #expect(message.key == MessageKey("mapping.invalidJSON"))
    }

    // MARK: - Errors of any module

    /// A feature's own error, described to the catalog through Transport's protocol alone.
    struct QuotaError: Error, ActionableError, MessageDescribable {
        var message: String { "You have used this month's 1000 requests." }
        var messageKeys: [String] { ["weather.quota", "unknown"] }
        var messageValues: [String: String] { ["limit": "1000"] }
    }

    @Test func describesAFeaturesErrorByTheFirstOfItsKeysTheCatalogHas() throws {
        var catalog = MessageCatalog.english
        let general = try #require(catalog.warning(for: QuotaError()))
        #expect(general.text == "Something went wrong.")
        #expect(general.detail == "You have used this month's 1000 requests.")
        #expect(general.key == .unknown)

        catalog[MessageKey("weather.quota")] = "You have reached this month's {limit} forecasts."
        let specific = try #require(catalog.warning(for: RequestFailure(QuotaError())))
        #expect(specific.text == "You have reached this month's 1000 forecasts.")
        #expect(specific.key == MessageKey("weather.quota"))
    }

    /// A business answer of a module the catalog does not know.
    struct Refusal: Error, MessageDescribable {
        var businessCode: BusinessCode? { 4031 }
        var businessMessage: String? { "Quota exceeded" }
    }

    @Test func describesABusinessOutcomeOfAnyModuleByItsCode() throws {
        let message = try #require(Self.english.warning(for: Refusal()))
        #expect(message.text == "Quota exceeded")
        #expect(message.code == 4031)
        #expect(Self.english.warning(for: Refusal(), successCodes: [4031]) == nil)
        #expect(Self.english.information(for: Refusal(), successCodes: [4031])?.text == "Quota exceeded")
    }

    // MARK: - Information

    @Test func informsWithTheMessageOfASuccessfulEnvelope() throws {
        let message = try #require(Self.english.information(for: EnvelopeHead(code: 200, message: "Saved Toronto.")))
        #expect(message.severity == .information)
        #expect(message.text == "Saved Toronto.")
        #expect(message.code == 200)
    }

    @Test func informsWithTheFallbackWhenTheEnvelopeHasNoMessage() throws {
        let message = try #require(
            Self.english.information(for: EnvelopeHead(code: 200), fallback: "Your city was saved."))
        #expect(message.text == "Your city was saved.")
    }

    @Test func saysNothingForAnEnvelopeWhoseCodeIsNotASuccess() {
        #expect(Self.english.information(for: EnvelopeHead(code: 404, message: "Unknown city")) == nil)
        #expect(Self.english.information(for: "a value with no code") == nil)
    }

    // MARK: - Languages

    @Test(arguments: english.entries.keys.sorted { $0.name < $1.name })
    func hasAChineseSentenceForEveryEnglishOne(key: MessageKey) throws {
        let chinese = try #require(MessageCatalog.simplifiedChinese[key])
        #expect(!chinese.isEmpty)
        #expect(chinese != Self.english[key])
    }

    @Test(arguments: [
        (["LANG": "zh_CN.UTF-8"], "zh-Hans"),
        (["LC_ALL": "zh_TW", "LANG": "en_GB.UTF-8"], "zh-Hans"),
        (["LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"], "en"),
        (["LC_ALL": "", "LC_MESSAGES": "zh-Hans"], "zh-Hans"),
        (["LANG": "fr_FR.UTF-8"], "en"),
        (["LANG": "C"], "en"),
        ([:], "en"),
    ])
    func picksTheCatalogTheEnvironmentAsksFor(environment: [String: String], languageCode: String) {
        #expect(MessageCatalog.preferred(environment: environment).languageCode == languageCode)
    }

    // MARK: - Retry notices

    @Test func writesARetryNoticeTheServerAskedFor() {
        let notice = RetryNotice(
            attempt: 2, maximumAttempts: 4, reason: "HTTP 503", delay: .seconds(2), serverAsked: true)
        #expect(Self.english.text(for: notice) == "Retrying in 2.0 s, the server asked; attempt 2 of 4.")
    }

    @Test func writesARetryNoticeWithoutADelayOrALimit() {
        let notice = RetryNotice(attempt: 3, reason: "connection reset")
        #expect(Self.english.text(for: notice) == "Retrying now; attempt 3.")
    }

    @Test func writesARetryNoticeInChinese() {
        let notice = RetryNotice(attempt: 2, maximumAttempts: 4, reason: "HTTP 503", delay: .seconds(2))
        #expect(MessageCatalog.simplifiedChinese.text(for: notice) == "2.0 s后重试；第 2 次，共 4 次。")
    }
}
