import Feedback
import FeedbackTesting
import Forms
import Foundation
import HTTPTypes
import Mapping
import Retry
import SystemAPI
import TestSupport
import Testing
import Transport
import TransportTesting

/// SystemAPI with the test doubles only: a stub transport stands for the backend, a recording
/// presenter for the screen.
@Suite struct SystemAPITests {
    /// A screen of the app: sends the system requests and shows their feedback.
    struct AboutScreen: SystemRequestable, Containable, Loadable, Warnable {
        let clientConfiguration: ClientConfiguration?
        let presenter: any FeedbackPresenter
        var containerId: String { "screen:about" }
        var catalog: MessageCatalog { .english }
    }

    static func screen(answering json: String, presenter: RecordingPresenter = RecordingPresenter())
        -> (AboutScreen, StubTransport)
    {
        let transport = StubTransport(always: .init(body: Data(json.utf8)))
        var client = ClientConfiguration(transport: transport, baseURL: "https://api.example.com")
        client.retry.maximumRetries = 0
        return (AboutScreen(clientConfiguration: client, presenter: presenter), transport)
    }

    @Test func readsTheServerClockFromTheEnvelope() async throws {
        let (screen, transport) = Self.screen(answering: #"{"code":200,"message":"ok","data":{"time":1764072000123}}"#)

        let time = try await screen.sysTime().value

        #expect(time.millisecondsSince1970 == 1_764_072_000_123)
        #expect(time.date == Date(timeIntervalSince1970: 1_764_072_000.123))
        let sent = try #require(transport.requests.first)
        #expect(sent.head.method == .get)
        #expect(sent.url == "https://api.example.com/sysTime")
    }

    @Test func postsTheAppVersionWithThePlatformHeader() async throws {
        let (screen, transport) = Self.screen(
            answering: #"""
                {"code":200,"message":"ok","data":[
                  {"version":"1.3.0","notes":"Faster","time":1700000000000},
                  {"version":"2.0.0","notes":"New look","time":1710000000000}]}
                """#)

        let releases = try await screen.sysVersion(appVersion: "1.2.0", platform: "linux").value

        #expect(releases.map(\.version) == ["1.3.0", "2.0.0"])
        #expect(releases.first?.publishedAt == Date(timeIntervalSince1970: 1_700_000_000))
        let sent = try #require(transport.requests.first)
        #expect(sent.head.method == .post)
        #expect(sent.url == "https://api.example.com/sysVersion")
        #expect(sent.head.headerFields[HTTPField.Name("platform")!] == "linux")
        #expect(sent.head.headerFields[.contentType] == "application/json")
        let body = try JSONSerialization.jsonObject(with: try #require(sent.body)) as? [String: String]
        #expect(body == ["appVersion": "1.2.0"])
    }

    @Test func failsWithTheServersMessageOnABusinessCode() async throws {
        let (screen, _) = Self.screen(answering: #"{"code":400,"message":"Missing header: platform","data":null}"#)

        let result = await screen.sysVersion(appVersion: "1.2.0").result

        let error = try #require(result.failure as? BusinessError)
        #expect(error.code == 400)
        #expect(error.serverMessage == "Missing header: platform")
    }

    @Test(arguments: [("", "linux", "app version"), ("1.2.0", " ", "platform")])
    func refusesAnEmptyArgumentBeforeSending(appVersion: String, platform: String, named: String) async throws {
        let (screen, transport) = Self.screen(answering: "{}")

        let result = await screen.sysVersion(appVersion: appVersion, platform: platform).result

        let error = try #require(result.failure as? FormError)
        #expect(error.category == .invalidParameters)
        #expect(error.message.contains("The \(named) is empty"))
        #expect(transport.requests.isEmpty)
    }

    @Test func masksTheScreenWhileLoadingAndWarnsWithTheServersMessage() async throws {
        let recorder = RecordingPresenter()
        let (screen, _) = Self.screen(
            answering: #"{"code":503,"message":"Maintenance until noon","data":null}"#, presenter: recorder)

        let result = await screen.sysTime().load(screen).warn(screen).result

        #expect(result.failure is BusinessError)
        #expect(recorder.everMasked(screen))
        #expect(recorder.masks(on: screen).isEmpty)
        #expect(recorder.maskOutcomes(on: screen) == [.failed])
        #expect(recorder.warnings.map(\.text).contains { $0.contains("Maintenance until noon") })
    }

    @Test func namesTheRunningPlatform() {
        #if os(Linux)
            #expect(SystemPlatform.current == "linux")
        #else
            #expect(SystemPlatform.current != "linux")
        #endif
    }
}
