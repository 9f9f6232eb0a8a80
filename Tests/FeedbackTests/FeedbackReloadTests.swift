import Feedback
import FeedbackTesting
import Foundation
import Mapping
import TestSupport
import Testing
import Transport
import TransportTesting

extension FeedbackChainTests {
    /// A server that fails the first request with a business error and answers the forecast after.
    static func failingOnce() throws -> StubTransport {
        let forecast = String(decoding: try JSONEncoder().encode(Forecast.toronto), as: UTF8.self)
        let requests = PThreadMutex(0)
        return StubTransport { _ in
            let first = requests.withLock { count in
                count += 1
                return count == 1
            }
            let body =
                first
                ? #"{"code":503,"message":"Busy, try again","data":null}"#
                : #"{"code":200,"message":"OK","data":\#(forecast)}"#
            return .init(body: Data(body.utf8))
        }
    }

    @Test func aReloadRunsTheWholeChainAgain() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let client = WeatherClient(transport: try Self.failingOnce())
        let successes = PThreadMutex(0)

        let handle = client.forecast(city: "Toronto").decodeEnvelope(Forecast.self).load(panel).warn(panel)
            .success { _ in successes.withLock { $0 += 1 } }
        let first = await handle.result
        #expect((first.failure as? BusinessError)?.code == 503)
        #expect(recorder.warnings.map(\.text) == ["Busy, try again"])
        #expect(recorder.maskOutcomes(on: panel) == [.failed])

        handle.reload()
        #expect(try await handle.value == .toronto)
        #expect(recorder.maskHistory(on: panel).count == 2, "the mask went on again for the second run")
        #expect(recorder.maskOutcomes(on: panel) == [.failed, .succeeded])
        #expect(recorder.warnings.count == 1, "the second run succeeded: no new warning")
        #expect(successes.withLock { $0 } == 1)
        #expect(recorder.isClear)
    }
}

extension FeedbackChainTests {
    @Test(arguments: [TransportError.Category.retryBudgetExhausted, .retryAfterTooLong, .authenticationFailed])
    func aRetryThatStoppedEarlyHasItsOwnSentence(category: TransportError.Category) throws {
        for catalog in [MessageCatalog.english, .simplifiedChinese] {
            let warning = try #require(
                catalog.warning(for: TransportError(category, message: "detail"), successCodes: []))
            #expect(warning.key == .transport(category), "\(catalog.languageCode) has a sentence for \(category)")
            #expect(warning.detail == "detail")
        }
    }
}
