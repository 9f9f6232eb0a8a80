import Foundation
import HTTPTypes
import Synchronization
import Testing
import Transport
import TransportTesting

@Suite struct TransportErrorTests {
    @Test func describesCategoryMessageURLAndCurlCode() {
        let error = TransportError(
            .dnsFailure, message: "No such host.", url: "http://nowhere.invalid/", curlCode: 6,
            mayHaveReachedServer: false)
        #expect(error.description == "dnsFailure: No such host. [url: http://nowhere.invalid/] [curl code 6]")
        #expect(error.category == .dnsFailure)
        #expect(error.category != .connectionRefused)
    }

    @Test func redirectPolicyClampsNegativeLimits() {
        #expect(RedirectPolicy.follow(limit: -3).limit == 0)
        #expect(RedirectPolicy.none.limit == 0)
        #expect(RedirectPolicy.follow().limit == 10)
    }
}
