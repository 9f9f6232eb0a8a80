import Forms
import Foundation
import HTTPTypes
import Logging
import Mapping
import Retry
import TestSupport
import Testing
import Transport
import TransportTesting

/// A plugin or a middleware that stops a request on purpose (`RequestStop`): no handler is
/// called back, an await gets the stop, nothing is retried.
@Suite struct RequestStopTests {
    /// Deals with the "signed out" answer itself, then stops the request, when told to.
    struct SignedOutGuard: Plugin {
        let stops: Bool
        let journal: LockedRecorder<String>
        var name: String { "SignedOutGuard" }
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            guard stops, response.status == .unauthorized else { return response }
            journal.append("guard showed the sign-in screen")
            throw RequestStop(by: name, reason: "the sign-in screen is shown")
        }
        func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {
            journal.append("afterCompletion \(result.failure is RequestStop ? "stopped" : "answered")")
        }
    }

    /// Every kind of handler, on the raw handle and on a decoded view of it.
    static func watched(
        _ handle: DataRequest<DataResponse>, journal: LockedRecorder<String>
    ) -> DataRequest<String> {
        handle.success { _ in journal.append("success") }
            .failure { _ in journal.append("failure") }
            .completion { _ in journal.append("completion") }
        handle.onStop { stop in journal.append("onStop \(stop.stoppedBy)") }
        return handle.map { response, _ in String(decoding: response.body, as: UTF8.self) }
            .completion { _ in journal.append("view completion") }
    }

    @Test(arguments: [true, false])
    func aPluginThatStopsCallsBackNoHandler(stops: Bool) async throws {
        // Given a client whose guard stops "signed out" answers (or lets them through)
        var (stub, configuration) = stubbed(.init(status: .unauthorized, body: Data("signed out".utf8)))
        let journal = LockedRecorder<String>()
        configuration.plugins = [SignedOutGuard(stops: stops, journal: journal)]

        // When a request is sent and awaited, with handlers of every kind
        let handle = Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo"))
        let view = Self.watched(handle, journal: journal)
        let result = await view.result
        let raw = await handle.result

        // Then a stop reaches the awaits and the stop hooks alone; otherwise every handler ran
        if stops {
            let stop = try #require(result.failure as? RequestStop)
            #expect(stop == RequestStop(by: "SignedOutGuard", reason: "the sign-in screen is shown"))
            #expect(raw.failure is RequestStop)
            #expect(
                stop.message == "The request was stopped on purpose by SignedOutGuard: the sign-in screen is shown.")
            #expect(
                journal.all == [
                    "guard showed the sign-in screen", "afterCompletion stopped", "onStop SignedOutGuard",
                ])
        } else {
            #expect(try result.get() == "signed out")
            #expect(journal.all == ["afterCompletion answered", "success", "completion", "view completion"])
        }
        #expect(stub.requests.count == 1)
    }

    /// Stops every answer with the given status.
    struct StatusStop: TransportMiddleware {
        let status: HTTPResponse.Status
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            let response = try await next(request)
            if response.head.status == status { throw RequestStop(by: "StatusStop") }
            return response
        }
    }

    @Test func aMiddlewaresStopIsNeverRetriedAndEndsTheEvents() async throws {
        // Given a client that retries 503s, with a middleware that stops them
        var (stub, configuration) = stubbed(.init(status: .serviceUnavailable))
        configuration.middleware = [StatusStop(status: .serviceUnavailable)]
        var retry = RetryPolicy()
        retry.baseDelay = .milliseconds(1)
        retry.budget = nil
        configuration.retry = retry
        let journal = LockedRecorder<String>()

        // When a request is sent, its events watched
        let handle = Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo"))
        _ = Self.watched(handle, journal: journal)
        var completions: [Bool] = []
        for await event in handle.events {
            if case .completed(let succeeded) = event { completions.append(succeeded) }
        }

        // Then it was sent once, its events completed unsuccessfully, and no handler but the hook ran
        #expect(completions == [false])
        #expect(await handle.result.failure as? RequestStop == RequestStop(by: "StatusStop"))
        #expect(stub.requests.count == 1, "a stop is not retried")
        try await waitUntil { !journal.all.isEmpty }
        #expect(journal.all == ["onStop StatusStop"])
    }

    @Test func dataForThrowsTheStop() async throws {
        var (_, configuration) = stubbed(.init(status: .serviceUnavailable))
        configuration.middleware = [StatusStop(status: .serviceUnavailable)]
        configuration.retry = .never
        await #expect(throws: RequestStop(by: "StatusStop")) {
            _ = try await Screen(clientConfiguration: configuration).data(for: WeatherForm.forecast(city: "Oslo"))
        }
    }

    @Test func theLoggingPluginLogsAStopAsNoFailure() async throws {
        var (_, configuration) = stubbed(.init(status: .serviceUnavailable))
        configuration.middleware = [StatusStop(status: .serviceUnavailable)]
        configuration.retry = .never
        let capture = LogCapture()
        configuration.logger = capture.logger()
        configuration.isLoggingEnabled = true
        _ = await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo")).result
        #expect(capture.messages(at: .warning).isEmpty)
        #expect(capture.messages(at: .info).contains { $0.contains("stopped on purpose by StatusStop") })
    }
}
