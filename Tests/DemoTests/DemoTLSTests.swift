import Foundation
import Testing

/// `parley-demo fetch` over TLS against the private nginx `make test` starts, with its test CA.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_REQUIRE_SERVERS"] == "1"
            || ProcessInfo.processInfo.environment["PARLEY_NGINX_TLS_URL"] != nil,
        "nginx is not running: run the tests with `make test`"))
struct DemoTLSTests {
    let tlsURL: String
    let testCA: String

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        tlsURL = try #require(environment["PARLEY_NGINX_TLS_URL"], "PARLEY_NGINX_TLS_URL is not set: use make test")
        testCA = try #require(environment["PARLEY_TEST_CA"], "PARLEY_TEST_CA is not set: use make test")
    }

    @Test func fetchesOverTLSWithTheGivenCA() async throws {
        let run = try await runDemo(["--cacert", testCA, "fetch", tlsURL + "/small.bin"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.outputData.isEmpty)
    }

    @Test func refusesAServerItCannotVerifyWithStatusThree() async throws {
        let run = try await runDemo(["--retries", "0", "fetch", tlsURL + "/small.bin"])

        #expect(run.status == 3)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.contains("TLS"), "\(run.standardError)")
    }
}
