import Feedback
import FeedbackTesting
import Foundation
import HTTPTypes
import Mapping
import TestSupport
import Testing
import Transport
import TransportTesting

/// The Feedback chain end to end: a feature's handle over a stub transport, its mapping, and
/// a business type that shows feedback through a recorder of its own.
@Suite struct FeedbackChainTests {
    /// The business type: the forecast panel of a weather screen.
    struct ForecastPanel: Containable, Loadable, Progressable, Warnable, Informable {
        let presenter: any FeedbackPresenter
        var containerId: String { "panel:forecast" }
        var containerTitle: String? { "Forecast" }
        var progressLabel: String { "forecast.json" }
        // The process's catalog is shared by parallel tests; this panel speaks English.
        var catalog: MessageCatalog { .english }
    }

    /// Holds an operation until the test lets it go, so that the test sees the request running.
    struct Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init(open: Bool = false) {
            (stream, continuation) = AsyncStream<Void>.makeStream()
            if open { continuation.finish() }
        }

        /// Returns once the gate opens, or the task is cancelled.
        func wait() async {
            for await _ in stream {}
        }

        func open() {
            continuation.finish()
        }
    }

    /// A feature's client, as small as it can be: one stub transport, one handle per call.
    struct WeatherClient: Sendable {
        let transport: StubTransport
        var gate = Gate(open: true)
        /// What the operation reports, after the gate and before it answers.
        var events: [RequestEvent] = []

        func forecast(city: String, startImmediately: Bool = true) -> DataRequest<DataResponse> {
            DataRequest(startImmediately: startImmediately) { [gate, events, transport] sink in
                await gate.wait()
                try Task.checkCancellation()
                for event in events { sink.send(event) }
                let request = try TransportRequest(method: .get, url: "http://weather.test/weather?city=\(city)")
                let response = try await transport.data(for: request)
                return .init(
                    value: response, response: ResponseInfo(head: response.head, url: response.url, metrics: nil))
            }
        }
    }

    static func envelope(_ json: String) -> StubTransport {
        StubTransport(always: .init(body: Data(json.utf8)))
    }

    static func forecastEnvelope() throws -> StubTransport {
        let data = String(decoding: try JSONEncoder().encode(Forecast.toronto), as: UTF8.self)
        return envelope(#"{"code":200,"message":"OK","data":\#(data)}"#)
    }

    static func progress(_ completed: Int64, final: Bool = false) -> RequestEvent {
        .transfer(
            .downloadProgress(TransferProgress(completed: completed, total: 1000, bytesPerSecond: 500, isFinal: final)))
    }

    // MARK: - Masks

    @Test func showsTheMaskOnThePanelDuringTheRequestAndTakesItOffAfter() async throws {
        // Given a request held before it answers
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let gate = Gate()
        let client = WeatherClient(transport: try Self.forecastEnvelope(), gate: gate)

        // When the panel loads it
        let handle = client.forecast(city: "Toronto").decodeEnvelope(Forecast.self).load(panel)

        // Then the panel is masked while it runs
        #expect(recorder.masks(on: panel).map(\.maskId) == ["spinner"])
        #expect(recorder.masks(on: panel).first?.container.title == "Forecast")

        // And clear once it has answered
        gate.open()
        #expect(try await handle.value == .toronto)
        #expect(recorder.masks(on: panel).isEmpty)
        #expect(recorder.maskOutcomes(on: panel) == [.succeeded])
        #expect(recorder.isClear)
    }

    @Test func stacksTheMasksOfTwoRequestsOnOnePanel() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let first = Gate()
        let second = Gate()
        let transport = try Self.forecastEnvelope()
        let toronto = WeatherClient(transport: transport, gate: first).forecast(city: "Toronto")
            .decodeEnvelope(Forecast.self).load(panel)
        let paris = WeatherClient(transport: transport, gate: second).forecast(city: "Paris")
            .decodeEnvelope(Forecast.self).load(
                LoadType.masked(HUDMask(text: "Loading Paris…"), container: panel).presenting(through: recorder))

        #expect(recorder.masks(on: panel).map(\.maskId) == ["spinner", "hud"])

        first.open()
        _ = try await toronto.value
        #expect(recorder.masks(on: panel).map(\.maskId) == ["hud"])

        second.open()
        _ = try await paris.value
        #expect(recorder.masks(on: panel).isEmpty)
        #expect(recorder.maximumMaskDepth(on: panel) == 2)
    }

    @Test func doesNotMaskADeferredHandleUntilItStarts() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let gate = Gate()
        let client = WeatherClient(transport: try Self.forecastEnvelope(), gate: gate)

        // Given a handle created to wait for `start()`
        let handle = client.forecast(city: "Toronto", startImmediately: false).decodeEnvelope(Forecast.self)
            .load(panel)
        #expect(!recorder.everMasked(panel))
        #expect(recorder.events.isEmpty)

        // When it starts, the mask goes on
        handle.start()
        #expect(recorder.masks(on: panel).count == 1)

        gate.open()
        _ = try await handle.value
        #expect(recorder.masks(on: panel).isEmpty)
    }

    // MARK: - Progress

    @Test func followsTheProgressToOneHundredPercent() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        var client = WeatherClient(transport: try Self.forecastEnvelope())
        client.events = [Self.progress(0), Self.progress(400), Self.progress(1000, final: true)]

        _ = try await client.forecast(city: "Toronto").decodeEnvelope(Forecast.self).progress(panel).value

        #expect(recorder.progress(label: "forecast.json").map(\.completed) == [0, 400, 1000])
        #expect(recorder.finalFraction(label: "forecast.json") == 1)
        #expect(recorder.transferOutcomes(label: "forecast.json") == [.succeeded])
        #expect(recorder.scene.transfers.isEmpty)
    }

    // MARK: - Messages

    @Test func warnsWithTheServersMessageAfterABusinessError() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let client = WeatherClient(
            transport: Self.envelope(#"{"code":404,"message":"Unknown city: Atlantis","data":null}"#))

        let result = await client.forecast(city: "Atlantis").decodeEnvelope(Forecast.self).load(panel).warn(panel)
            .result

        let error = try #require(result.failure as? BusinessError)
        #expect(error.code == 404)
        #expect(recorder.warnings.map(\.text) == ["Unknown city: Atlantis"])
        #expect(recorder.warnings.first?.code == 404)
        #expect(recorder.messages(in: panel).count == 1)
        #expect(recorder.informations.isEmpty)
        #expect(recorder.maskOutcomes(on: panel) == [.failed])
    }

    @Test func warnsWithTheCatalogsSentenceAfterATransportFailure() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let transport = StubTransport { _ in
            throw TransportError(.connectionRefused, message: "Nothing listens on weather.test:80.")
        }

        let result = await WeatherClient(transport: transport).forecast(city: "Toronto")
            .decodeEnvelope(Forecast.self).warn(panel).result

        #expect(result.failure != nil)
        let warning = try #require(recorder.warnings.first)
        #expect(warning.text == MessageCatalog.english[.transport(.connectionRefused)])
        #expect(warning.detail == "Nothing listens on weather.test:80.")
    }

    @Test func informsAfterASuccessOnlyRequest() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let client = WeatherClient(
            transport: Self.envelope(#"{"code":200,"message":"Saved Toronto to your cities.","data":null}"#))

        let head = try await client.forecast(city: "Toronto").successOnly().load(panel).warn(panel).inform(panel)
            .value

        #expect(head.code == 200)
        #expect(recorder.informations.map(\.text) == ["Saved Toronto to your cities."])
        #expect(recorder.warnings.isEmpty)
    }

    // MARK: - Retries and cancellation

    @Test func showsANoticeWhenTheRequestRetries() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        var client = WeatherClient(transport: try Self.forecastEnvelope())
        let notice = RetryEvent(
            attempt: 2, maximumAttempts: 4, reason: "HTTP 503", delay: .seconds(2), serverAsked: true)
        client.events = [.retry(notice)]

        _ = try await client.forecast(city: "Toronto").decodeEnvelope(Forecast.self).load(panel).value

        // The handle's event reaches the presenter whole: delay, limit and who chose the wait.
        #expect(recorder.retries == [notice])
        #expect(
            panel.catalog.text(for: recorder.retries[0]) == "Retrying in 2.0 s, the server asked; attempt 2 of 4.")
        // The notice came while the mask was on, so it is printed before the mask's summary.
        #expect(recorder.outputs.first == .retry(notice, label: "Loading…"))
        #expect(recorder.outputs.count == 2)
    }

    @Test func doesNotWarnWhenTheRequestIsCancelled() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let client = WeatherClient(transport: try Self.forecastEnvelope(), gate: Gate())
        let handle = client.forecast(city: "Toronto").decodeEnvelope(Forecast.self).load(panel).warn(panel)
        #expect(recorder.masks(on: panel).count == 1)

        handle.cancel()
        let result = await handle.result

        let error = try #require(result.failure as? TransportError)
        #expect(error.category == .cancelled)
        #expect(recorder.warnings.isEmpty)
        #expect(recorder.masks(on: panel).isEmpty)
        #expect(recorder.maskOutcomes(on: panel) == [.cancelled])
    }

    // MARK: - Mixing with handlers and await

    @Test func takesTheMaskOffBeforeLaterHandlersRunAndBeforeValueReturns() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let gate = Gate()
        let client = WeatherClient(transport: try Self.forecastEnvelope(), gate: gate)
        let seen = LockedRecorder<String>()

        let handle = client.forecast(city: "Toronto").decodeEnvelope(Forecast.self)
            .load(panel)
            .success { _ in seen.append("success with \(recorder.masks(on: panel).count) masks") }
            .failure { _ in seen.append("failure") }
        #expect(recorder.masks(on: panel).count == 1)

        gate.open()
        let forecast = try await handle.value
        let masksWhenValueReturned = recorder.masks(on: panel).count

        #expect(forecast == .toronto)
        #expect(masksWhenValueReturned == 0)
        #expect(seen.all == ["success with 0 masks"])
    }

    @Test func showsTheWarningBeforeLaterFailureHandlersRun() async throws {
        let recorder = RecordingPresenter()
        let panel = ForecastPanel(presenter: recorder)
        let client = WeatherClient(
            transport: Self.envelope(#"{"code":404,"message":"Unknown city: Atlantis","data":null}"#))
        let seen = LockedRecorder<String>()

        let result = await client.forecast(city: "Atlantis").decodeEnvelope(Forecast.self)
            .load(panel)
            .warn(panel)
            .failure { _ in seen.append("failure after \(recorder.warnings.count) warnings") }
            .result

        #expect(result.failure != nil)
        #expect(seen.all == ["failure after 1 warnings"])
    }
}
