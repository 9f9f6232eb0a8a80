import Testing
import Transport

@testable import TransportCurl

/// Which loop a transfer goes to, and how the connection limits are divided between loops, as
/// tables without a server.
///
/// Checked to fail without each rule: with the sender's loop ignored, the rows "sent from a
/// loop" fail; with pinning ignored, "a pinned origin stays home however busy" fails; without
/// the busy threshold, "not yet busy" and "not busy" fail; with the scan starting at 0 instead
/// of the home loop, the tie rows fail; with the default port kept in the hash, the rows with
/// ":80" and ":443" fail; with the limits copied to every loop, every division row fails; with
/// extra loops taking transfers before the base loops are full, "extra loops wait" fails; with
/// a full sender loop kept, "a full sender loop gives way" fails; without extra loops for high
/// limits, the rows with 10,000 connections fail.
@Suite struct LoopPlacementTests {
    /// One row: loops' loads, the least per-host connections a loop has, the request's facts,
    /// the loop expected.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let loads: [Int]
        var connectionsPerHost = Int.max
        /// The base loops, all of them when `nil`.
        var baseLoops: Int? = nil
        let request: LoopPlacement.Request
        let expected: Int

        var testDescription: String {
            "\(name): loads \(loads)\(baseLoops.map { " (\($0) base)" } ?? ""), \(request) → loop \(expected)"
        }
    }

    static let rows: [Row] = [
        Row(
            name: "one loop takes everything", loads: [7],
            request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 0),
        Row(
            name: "requests one at a time stay home", loads: [0, 0, 0],
            request: .init(home: 1, pinsOrigin: false, senderLoop: nil), expected: 1),
        Row(
            name: "a home loop not yet busy keeps the request", loads: [15, 0, 0, 0],
            request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 0),
        Row(
            name: "a busy home loop gives way to the least loaded", loads: [16, 4, 9, 20],
            request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 1),
        Row(
            name: "busy means as many as the loop's connections to a host, when fewer", loads: [4, 0, 0, 0],
            connectionsPerHost: 4, request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 1),
        Row(
            name: "fewer than the loop's connections to a host is not busy", loads: [3, 0, 0, 0],
            connectionsPerHost: 4, request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 0),
        Row(
            name: "a tie between busy loops keeps the home loop", loads: [20, 20, 20, 20],
            request: .init(home: 2, pinsOrigin: false, senderLoop: nil), expected: 2),
        Row(
            name: "a tie between others goes to the first after home", loads: [25, 17, 25, 17],
            request: .init(home: 2, pinsOrigin: false, senderLoop: nil), expected: 3),
        Row(
            name: "a pinned origin stays home however busy", loads: [0, 0, 90, 0],
            request: .init(home: 2, pinsOrigin: true, senderLoop: nil), expected: 2),
        Row(
            name: "sent from a loop, it stays there", loads: [0, 50, 0, 0],
            request: .init(home: 0, pinsOrigin: false, senderLoop: 1), expected: 1),
        Row(
            name: "sent from a loop, it stays there even for a pinned origin", loads: [0, 0, 0, 0],
            request: .init(home: 0, pinsOrigin: true, senderLoop: 3), expected: 3),
        Row(
            name: "a sender loop out of range is ignored", loads: [20, 0],
            request: .init(home: 0, pinsOrigin: false, senderLoop: 5), expected: 1),
        Row(
            name: "a full sender loop gives way to the least loaded", loads: [256, 40, 30, 50],
            request: .init(home: 0, pinsOrigin: false, senderLoop: 0), expected: 2),
        Row(
            name: "a sender loop just below full keeps the request", loads: [255, 40, 30, 50],
            request: .init(home: 0, pinsOrigin: false, senderLoop: 0), expected: 0),
        Row(
            name: "a sender loop keeps the request when its connections to the host are busy", loads: [0, 9, 0, 0],
            connectionsPerHost: 4, request: .init(home: 0, pinsOrigin: false, senderLoop: 1), expected: 1),
        Row(
            name: "extra loops wait while a base loop has room", loads: [200, 255, 0, 0], baseLoops: 2,
            request: .init(home: 1, pinsOrigin: false, senderLoop: nil), expected: 0),
        Row(
            name: "full base loops spill to the least loaded extra loop", loads: [256, 300, 9, 4], baseLoops: 2,
            request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 3),
        Row(
            name: "once every loop is loaded, the least loaded of all", loads: [400, 300, 390, 310], baseLoops: 2,
            request: .init(home: 0, pinsOrigin: false, senderLoop: nil), expected: 1),
        Row(
            name: "a pinned origin stays on its base home when the base loops are full", loads: [900, 900, 0, 0],
            baseLoops: 2, request: .init(home: 1, pinsOrigin: true, senderLoop: nil), expected: 1),
        Row(
            name: "full means as many as the loop's connections to a host, when fewer", loads: [8, 8, 0, 1],
            connectionsPerHost: 8, baseLoops: 2, request: .init(home: 0, pinsOrigin: false, senderLoop: nil),
            expected: 2),
    ]

    @Test(arguments: rows) func placesEachRequest(_ row: Row) {
        let placement = LoopPlacement(
            loopCount: row.loads.count, baseLoopCount: row.baseLoops, connectionsPerHost: row.connectionsPerHost)
        #expect(placement.loop(for: row.request) { row.loads[$0] } == row.expected)
    }

    @Test func aLoopIsBusyFromSixteenTransfersOrItsConnectionsToAHost() {
        #expect(LoopPlacement(loopCount: 2).spreadThreshold == 16)
        #expect(LoopPlacement(loopCount: 2, connectionsPerHost: 8).spreadThreshold == 8)
        #expect(LoopPlacement(loopCount: 2, connectionsPerHost: 0).spreadThreshold == 1)
    }

    @Test func aLoopIsFullFrom256TransfersOrItsConnectionsToAHost() {
        #expect(LoopPlacement(loopCount: 2).spillThreshold == 256)
        #expect(LoopPlacement(loopCount: 2, connectionsPerHost: 100).spillThreshold == 100)
        #expect(LoopPlacement(loopCount: 2, connectionsPerHost: 0).spillThreshold == 1)
    }

    @Test func homesAreBaseLoops() {
        // Given ten loops, two of them base loops
        let placement = LoopPlacement(loopCount: 10, baseLoopCount: 2)

        // Then every origin's home is one of the two
        for host in 0..<200 {
            #expect(placement.home(ofHash: LoopPlacement.origin(of: "http://host\(host).example/").hash) < 2)
        }
        #expect(LoopPlacement(loopCount: 3, baseLoopCount: 7).baseLoopCount == 3)
        #expect(LoopPlacement(loopCount: 3, baseLoopCount: 0).baseLoopCount == 1)
    }

    /// URL pairs of one origin.
    static let sameOrigins: [(String, String)] = [
        ("http://a.example/x", "http://a.example/y?q=1"),
        ("http://a.example/", "HTTP://A.Example/"),
        ("http://a.example/", "http://a.example:80/"),
        ("https://a.example/", "https://a.example:443/z"),
        ("http://a.example/", "http://user:secret@a.example/"),
        ("http://a.example/", "http://a.example?x=1"),
        ("http://[::1]:8080/", "http://[::1]:8080/p"),
    ]

    @Test(arguments: sameOrigins) func oneOriginHasOneHome(_ first: String, _ second: String) {
        #expect(LoopPlacement.origin(of: first) == LoopPlacement.origin(of: second))
    }

    /// URL pairs of different origins.
    static let otherOrigins: [(String, String)] = [
        ("http://a.example/", "https://a.example/"),
        ("http://a.example/", "http://b.example/"),
        ("http://a.example/", "http://a.example:8080/"),
        ("https://a.example/", "https://a.example:80/"),
    ]

    @Test(arguments: otherOrigins) func otherOriginsHashApart(_ first: String, _ second: String) {
        #expect(LoopPlacement.origin(of: first).hash != LoopPlacement.origin(of: second).hash)
    }

    @Test func onlyHTTPSIsSecure() {
        #expect(LoopPlacement.origin(of: "https://a.example/").isHTTPS)
        #expect(LoopPlacement.origin(of: "HTTPS://a.example/").isHTTPS)
        #expect(!LoopPlacement.origin(of: "http://a.example/").isHTTPS)
        #expect(!LoopPlacement.origin(of: "httpsx://a.example/").isHTTPS)
        #expect(!LoopPlacement.origin(of: "not a url").isHTTPS)
    }

    @Test func homesSpreadOverTheLoops() {
        // Given a thousand hosts over four loops
        let placement = LoopPlacement(loopCount: 4)
        var perLoop = [0, 0, 0, 0]
        for host in 0..<1000 {
            perLoop[placement.home(ofHash: LoopPlacement.origin(of: "https://host\(host).example/").hash)] += 1
        }

        // Then each loop is the home of a fair share (250 on average)
        #expect(perLoop.allSatisfy { $0 > 180 }, "\(perLoop)")
    }

    @Test func anHTTPSOriginThatAnswersInHTTP11IsNoLongerPinned() async throws {
        // Given four loops, and an HTTPS origin, pinned to its home loop
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 4
        let group = try CurlLoopGroup(configuration: configuration)
        let url = "https://a.example/x"
        let home = LoopPlacement(loopCount: 4).home(ofHash: LoopPlacement.origin(of: url).hash)
        let first = group.place(url)
        #expect(first.loop == home)
        let origin = try #require(first.pinnedOrigin)

        // When it answers in HTTP/2, it stays pinned
        group.learn(httpVersion: "2", of: origin)
        #expect(group.place(url).pinnedOrigin == origin)

        // When it answers in HTTP/1.1, its requests spread like cleartext ones
        // (and a busy home loop, with as many transfers as its 4 connections to a host, gives
        // them to another)
        group.learn(httpVersion: "1.1", of: origin)
        for _ in 0..<4 { group.began(on: home) }
        let later = group.place(url)
        #expect(later.pinnedOrigin == nil)
        #expect(later.loop != home)
        for _ in 0..<4 { group.ended(on: home) }

        // And another origin is still pinned
        #expect(group.place("https://b.example/").pinnedOrigin != nil)
        await group.shutdown()
    }

    @Test func remembersABoundedNumberOfHTTP11Origins() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 2
        let group = try CurlLoopGroup(configuration: configuration)
        // Given as many HTTPS/1.1 origins learnt as the group remembers
        for host in 0..<CurlLoopGroup.http1OriginLimit {
            group.learn(httpVersion: "1.1", of: LoopPlacement.origin(of: "https://h\(host).example/").hash)
        }
        #expect(group.place("https://h0.example/").pinnedOrigin == nil)

        // When one more answers in HTTP/1.1, it is not remembered, and stays pinned
        let extra = "https://extra.example/"
        group.learn(httpVersion: "1.1", of: LoopPlacement.origin(of: extra).hash)
        #expect(group.place(extra).pinnedOrigin != nil)
        await group.shutdown()
    }

    @Test func cleartextAndHTTPSWithoutHTTP2AreNeverPinned() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = 2
        let group = try CurlLoopGroup(configuration: configuration)
        #expect(group.place("http://a.example/").pinnedOrigin == nil)
        #expect(group.place("https://a.example/").pinnedOrigin != nil)
        await group.shutdown()

        configuration.allowsHTTP2 = false
        let withoutHTTP2 = try CurlLoopGroup(configuration: configuration)
        #expect(withoutHTTP2.place("https://a.example/").pinnedOrigin == nil)
        await withoutHTTP2.shutdown()
    }

    /// One row of the division of the limits: the settings, then each loop's per-host and total
    /// limits.
    struct LimitRow: Sendable, CustomTestStringConvertible {
        let loops: Int
        let perHost: Int
        let total: Int
        let expectedPerHost: [Int]
        let expectedTotal: [Int]

        var testDescription: String {
            "\(loops) loops, \(perHost) per host, \(total) in total → \(expectedPerHost), \(expectedTotal)"
        }
    }

    static let limitRows: [LimitRow] = [
        LimitRow(loops: 1, perHost: 16, total: 0, expectedPerHost: [16], expectedTotal: [0]),
        LimitRow(loops: 2, perHost: 16, total: 0, expectedPerHost: [8, 8], expectedTotal: [0, 0]),
        LimitRow(loops: 3, perHost: 16, total: 0, expectedPerHost: [6, 5, 5], expectedTotal: [0, 0, 0]),
        LimitRow(loops: 4, perHost: 8, total: 10, expectedPerHost: [2, 2, 2, 2], expectedTotal: [3, 3, 2, 2]),
        LimitRow(loops: 4, perHost: 2, total: 0, expectedPerHost: [1, 1], expectedTotal: [0, 0]),
        LimitRow(loops: 4, perHost: 1, total: 0, expectedPerHost: [1], expectedTotal: [0]),
        LimitRow(loops: 4, perHost: 0, total: 0, expectedPerHost: [1], expectedTotal: [0]),
        LimitRow(loops: 4, perHost: 16, total: 3, expectedPerHost: [6, 5, 5], expectedTotal: [1, 1, 1]),
        LimitRow(loops: 4, perHost: 16, total: -5, expectedPerHost: [4, 4, 4, 4], expectedTotal: [0, 0, 0, 0]),
        LimitRow(loops: 2, perHost: 1024, total: 0, expectedPerHost: [512, 512], expectedTotal: [0, 0]),
        LimitRow(
            loops: 2, perHost: 10_000, total: 0, expectedPerHost: Array(repeating: 1000, count: 10),
            expectedTotal: Array(repeating: 0, count: 10)),
        LimitRow(
            loops: 2, perHost: 16, total: 5000, expectedPerHost: [4, 3, 3, 3, 3],
            expectedTotal: [1000, 1000, 1000, 1000, 1000]),
        LimitRow(
            loops: 1, perHost: 1_000_000, total: 0, expectedPerHost: Array(repeating: 15625, count: 64),
            expectedTotal: Array(repeating: 0, count: 64)),
    ]

    @Test(arguments: limitRows) func divisesTheConnectionLimitsBetweenTheLoops(_ row: LimitRow) {
        // Given a configuration with these limits
        var configuration = CurlTransport.Configuration()
        configuration.loopCount = row.loops
        configuration.maximumConnectionsPerHost = row.perHost
        configuration.maximumTotalConnections = row.total
        configuration.userAgent = "kept"

        // When it is divided between loops
        let loops = CurlLoopGroup.loopConfigurations(for: configuration)

        // Then the loops together keep to the limits, and everything else is the same
        #expect(loops.map(\.maximumConnectionsPerHost) == row.expectedPerHost)
        #expect(loops.map(\.maximumTotalConnections) == row.expectedTotal)
        #expect(loops.allSatisfy { $0.loopCount == 1 && $0.userAgent == "kept" })
    }
}
