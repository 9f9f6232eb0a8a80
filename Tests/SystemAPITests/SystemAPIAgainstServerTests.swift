import Forms
import Foundation
import Mapping
import MockBackend
import ServerTestSupport
import SystemAPI
import TestSupport
import Testing
import Transport
import TransportCurl

/// SystemAPI against the mock backend's `/sysTime` and `/sysVersion`, over the engine.
@Suite struct SystemAPIAgainstServerTests {
    struct AboutScreen: SystemRequestable {
        let clientConfiguration: ClientConfiguration?
    }

    func withScreen(_ body: (AboutScreen, MockServer) async throws -> Void) async throws {
        try await withServerAndTransport { server, transport in
            let client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            try await body(AboutScreen(clientConfiguration: client), server)
        }
    }

    @Test func readsAClockCloseToOurs() async throws {
        try await withScreen { screen, _ in
            let before = Date()
            let time = try await screen.sysTime().value
            let after = Date()

            #expect(time.date >= before.addingTimeInterval(-1))
            #expect(time.date <= after.addingTimeInterval(1))
        }
    }

    /// `versions` from the oldest to the newest, compared number by number.
    static func ascending(_ versions: [String]) -> [String] {
        versions.sorted {
            $0.split(separator: ".").map { Int($0) ?? 0 }.lexicographicallyPrecedes(
                $1.split(separator: ".").map { Int($0) ?? 0 })
        }
    }

    @Test func listsOnlyTheReleasesNewerThanTheAppsVersion() async throws {
        try await withScreen { screen, _ in
            let versions = Self.ascending(try await screen.sysVersion(appVersion: "0.0.1").value.map(\.version))
            #expect(versions.count >= 2)
            let secondNewest = try #require(versions.dropLast().last)

            let newer = try await screen.sysVersion(appVersion: secondNewest).value

            #expect(newer.map(\.version) == [try #require(versions.last)])
            #expect(newer.allSatisfy { !$0.notes.isEmpty })
        }
    }

    @Test func hearsNothingNewerThanTheNewestRelease() async throws {
        try await withScreen { screen, _ in
            let versions = try await screen.sysVersion(appVersion: "0.0.1").value.map(\.version)
            let newest = try #require(Self.ascending(versions).last)

            let newer = try await screen.sysVersion(appVersion: newest).value

            #expect(newer.isEmpty)
        }
    }

    @Test func retriesTheVersionQueryAfterADropThoughItIsAPost() async throws {
        try await withScreen { screen, server in
            server.faults.script("/sysVersion", [.drop])

            let releases = try await screen.sysVersion(appVersion: "0.0.1").value

            #expect(!releases.isEmpty)
            #expect(server.faults.counters(for: "/sysVersion") == .init(requests: 2, drops: 1))
        }
    }

    @Test func sendsThePlatformTheServerReads() async throws {
        try await withScreen { screen, server in
            _ = try await screen.sysVersion(appVersion: "1.0.0", platform: "linux").value

            let recorded = try #require(server.receivedRequests().last { $0.path == "/sysVersion" })
            #expect(recorded.values(forHeader: "platform") == ["linux"])
        }
    }
}
