import Forms
import Foundation
import HTTPTypes
import Mapping
import Synchronization
import TestSupport
import Testing
import Transport
import TransportTesting

/// What a call, a client and a form decide: timeouts, user information, the default decoder,
/// the handlers' executor, and a plugin stopping a response.
@Suite struct CallOptionsTests {
    enum ScreenName: RequestUserInfoKey { typealias Value = String }
    enum Tenant: RequestUserInfoKey { typealias Value = Int }

    struct SlowForm: RequestFormable {
        var path: String { "/slow" }
        var timeout: Duration? { .seconds(30) }
    }

    // MARK: - Timeouts

    @Test func aCallsTimeoutWinsOverTheFormsAndTheClients() async throws {
        var (stub, configuration) = stubbed()
        configuration.timeout = .seconds(10)
        let screen = Screen(clientConfiguration: configuration)
        _ = try await screen.request(SlowForm(), options: CallOptions(timeout: .seconds(2))).value
        _ = try await screen.request(SlowForm()).value
        _ = try await screen.request(WeatherForm.forecast(city: "Oslo")).value
        _ = try await screen.request(WeatherForm.forecast(city: "Oslo"), options: CallOptions(timeout: .seconds(1)))
            .value
        #expect(stub.requests.map(\.options.deadline) == [.seconds(2), .seconds(30), .seconds(10), .seconds(1)])
    }

    // MARK: - User information

    /// Records what each request carried.
    struct Reader: Plugin, TransportMiddleware {
        let seen: LockedRecorder<String>
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            seen.append("plugin \(request.userInfo[ScreenName.self] ?? "-") \(request.userInfo[Tenant.self] ?? 0)")
        }
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            seen.append("middleware \(request.userInfo[ScreenName.self] ?? "-")")
            return try await next(request)
        }
    }

    @Test func userInformationReachesPluginsMiddlewareAndTheHandle() async throws {
        var (_, configuration) = stubbed(.init(body: Data(#"{"code":200,"data":1}"#.utf8)))
        let seen = LockedRecorder<String>()
        configuration.plugins = [Reader(seen: seen)]
        configuration.middleware = [Reader(seen: seen)]
        configuration.userInfo[Tenant.self] = 7
        configuration.userInfo[ScreenName.self] = "client"
        var call = RequestUserInfo()
        call[ScreenName.self] = "forecast"
        let handle = Screen(clientConfiguration: configuration)
            .request(WeatherForm.forecast(city: "Oslo"), options: CallOptions(userInfo: call))
        let decoded = handle.decodeEnvelope(Int.self)
        #expect(try await decoded.value == 1)
        #expect(seen.all == ["plugin forecast 7", "middleware forecast"])
        #expect(handle.userInfo[ScreenName.self] == "forecast")
        #expect(decoded.userInfo[Tenant.self] == 7, "a derived handle keeps the values")
    }

    // MARK: - The client's decoder

    /// An envelope of another shape, which throws the app's own error.
    struct ShopEnvelope: EnvelopeFormat {
        var codePath: JSONKeyPath { "status" }
        var dataPath: JSONKeyPath { "result" }
        var successCodes: Set<BusinessCode> { [0] }
        func error(for failure: BusinessError) -> any Error { ShopError(code: failure.code.intValue ?? -1) }
    }

    struct ShopError: Error, Equatable {
        let code: Int
    }

    @Test func theClientsDecoderIsUsedUnlessACallNamesItsOwn() async throws {
        var (_, configuration) = stubbed(.init(body: Data(#"{"status":0,"result":42,"code":500}"#.utf8)))
        configuration.userInfo.responseDecoder = ResponseDecoder(envelope: ShopEnvelope())
        let screen = Screen(clientConfiguration: configuration)
        #expect(try await screen.request(WeatherForm.forecast(city: "Oslo")).decodeEnvelope(Int.self).value == 42)
        let standard = await screen.request(WeatherForm.forecast(city: "Oslo"))
            .decodeEnvelope(Int.self, decoder: ResponseDecoder()).result
        #expect((standard.failure as? BusinessError)?.code == 500, "the call's own decoder wins")
    }

    @Test func anEnvelopeThrowsTheAppsOwnError() async throws {
        var (_, configuration) = stubbed(.init(body: Data(#"{"status":17,"result":null}"#.utf8)))
        configuration.userInfo.responseDecoder = ResponseDecoder(envelope: ShopEnvelope())
        let result = await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo"))
            .decodeEnvelope(Int.self).result
        #expect(result.failure as? ShopError == ShopError(code: 17))
    }

    // MARK: - Executors

    @Test func handlersRunOnTheClientsExecutorInOrder() async throws {
        var (_, configuration) = stubbed()
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "handlers")
        queue.setSpecific(key: key, value: "handlers")
        configuration.handlerExecutor = .queue(queue)
        let order = LockedRecorder<Int>()
        let places = LockedRecorder<String?>()
        let handle = Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo"))
        for index in 0..<50 {
            handle.completion { _ in
                order.append(index)
                places.append(DispatchQueue.getSpecific(key: key))
            }
        }
        _ = try await handle.value
        try await waitUntil { order.all.count == 50 }
        #expect(order.all == Array(0..<50))
        #expect(places.all.allSatisfy { $0 == "handlers" })
    }

    /// A task executor that runs every job on one serial queue, and counts them.
    final class QueueExecutor: TaskExecutor {
        static let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "operations")
        let jobs = Atomic(0)

        init() { queue.setSpecific(key: Self.key, value: "operations") }

        func enqueue(_ job: consuming ExecutorJob) {
            jobs.add(1, ordering: .relaxed)
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Records where `prepare` ran.
    struct PlacePlugin: Plugin {
        let places: LockedRecorder<String?>
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            places.append(DispatchQueue.getSpecific(key: QueueExecutor.key))
        }
    }

    @Test func theClientsTaskExecutorRunsItsHandlesOperations() async throws {
        // Given a client whose operations prefer an executor of their own, and one without
        let executor = QueueExecutor()
        let places = LockedRecorder<String?>()
        var (_, configuration) = stubbed()
        configuration.plugins = [PlacePlugin(places: places)]
        var preferring = configuration
        preferring.taskExecutor = executor

        // When each sends a request
        _ = try await Screen(clientConfiguration: preferring).request(WeatherForm.forecast(city: "Oslo")).value
        let jobsOfTheFirst = executor.jobs.load(ordering: .relaxed)
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo")).value

        // Then the first one's operation (its plugins included) ran there, the second's did not
        #expect(jobsOfTheFirst > 0)
        #expect(executor.jobs.load(ordering: .relaxed) == jobsOfTheFirst)
        #expect(places.all == ["operations", nil])
    }

    /// The main actor runs on the main dispatch queue (on Linux the main thread may have
    /// handed that queue to a worker, so the queue is what is checked, not the thread).
    @Test func aCallCanAskForTheMainActor() async throws {
        let (_, configuration) = stubbed()
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let onMain = LockedRecorder<Bool>()
        let handle = Screen(clientConfiguration: configuration)
            .request(WeatherForm.forecast(city: "Oslo"), options: CallOptions(executor: .mainActor))
            .success { _ in onMain.append(DispatchQueue.getSpecific(key: key) == "main") }
            .failure { _ in onMain.append(DispatchQueue.getSpecific(key: key) == "main") }
        _ = await handle.result
        try await waitUntil { !onMain.all.isEmpty }
        #expect(onMain.all == [true])
    }

    // MARK: - Stopping a response

    /// Handles the "signed out" answer itself and stops it there.
    struct SignedOutGuard: Plugin {
        let journal: LockedRecorder<String>
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            guard response.status == .unauthorized else { return response }
            journal.append("guard stopped it")
            throw FormError(.vetoed, message: "Signed out; the sign-in screen is shown.")
        }
    }

    @Test func aPluginStopsFurtherProcessingByThrowingFromProcess() async throws {
        var (_, configuration) = stubbed(.init(status: .unauthorized))
        let journal = LockedRecorder<String>()
        configuration.plugins = [SignedOutGuard(journal: journal), PluginTests.Recorder(journal: journal)]
        let result = await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo"))
            .result
        #expect((result.failure as? FormError)?.message == "Signed out; the sign-in screen is shown.")
        #expect(journal.all == ["willSend /weather", "prepare", "guard stopped it", "afterCompletion false"])
    }
}
