import Feedback
import FeedbackTesting
import Foundation
import HTTPTypes
import Mapping
import TestSupport
import Testing
import Transport
import TransportTesting

/// A request stopped on purpose (`RequestStop`) is neither a success nor a failure for
/// feedback: the mask comes off, nothing is warned or informed.
@Suite struct FeedbackStopTests {
    typealias Panel = FeedbackChainTests.ForecastPanel

    /// A handle over a stub whose answer a middleware either stops or lets through.
    static func forecast(stopping: Bool) throws -> DataRequest<Forecast> {
        let transport = try FeedbackChainTests.forecastEnvelope()
        return DataRequest<DataResponse> { _ in
            let request = try TransportRequest(method: .get, url: "http://weather.test/weather")
            let response = try await transport.data(for: request)
            if stopping { throw RequestStop(by: "MaintenancePage", reason: "the page is shown") }
            return .init(value: response, response: ResponseInfo(head: response.head, url: response.url, metrics: nil))
        }.decodeEnvelope(Forecast.self)
    }

    @Test(arguments: [true, false])
    func aStoppedRequestTakesTheMaskOffAndWarnsOfNothing(stopping: Bool) async throws {
        // Given a panel that loads, warns and informs
        let recorder = RecordingPresenter()
        let panel = Panel(presenter: recorder)

        // When the request is stopped (or not)
        let handle = try Self.forecast(stopping: stopping).load(panel).warn(panel).inform(panel)
        let result = await handle.result

        // Then the mask is off either way; a stop shows no message at all
        #expect(recorder.masks(on: panel).isEmpty)
        if stopping {
            #expect((try? result.get()) == nil)
            #expect(recorder.maskOutcomes(on: panel) == [.cancelled])
            #expect(recorder.messages.isEmpty, "neither a warning nor an information")
        } else {
            #expect(try result.get() == .toronto)
            #expect(recorder.maskOutcomes(on: panel) == [.succeeded])
        }
    }
}
