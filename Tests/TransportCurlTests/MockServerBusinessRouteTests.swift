import Downloads
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// The mock server's business routes — the backend of the weather demo — driven through
/// `CurlTransport`: `/sysTime`, `/sysVersion`, `/weather`, `/weather/cities`, `/weather/radar`,
/// `/weather/report`, and the faults they get on demand (``FaultInjector`` and `/faults`).
@Suite struct MockServerBusinessRouteTests {
    // MARK: - /sysTime and /sysVersion

    @Test func answersTheServerClockInMillisecondsSince1970() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await get(transport, server, "/sysTime")

                let envelope = try Envelope<ServerTime>(response.body)
                let now = Int(Date().timeIntervalSince1970 * 1000)
                #expect(response.status == .ok)
                #expect(envelope.code == 200)
                #expect(envelope.message == "ok")
                let time = try #require(envelope.data?.time)
                #expect(abs(time - now) < 60_000)
            }
        }
    }

    @Test func listsTheReleasesNewerThanTheAppVersionForThePlatformNewestFirst() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let linux = try await sysVersion(transport, server, platform: "linux", body: #"{"appVersion":"1.1.0"}"#)
                let ios = try await sysVersion(transport, server, platform: "iOS", body: #"{"appVersion":"1.1.0"}"#)
                let numeric = try await sysVersion(
                    transport, server, platform: "linux", body: #"{"appVersion":"1.10"}"#)
                let latest = try await sysVersion(
                    transport, server, platform: "linux", body: #"{"appVersion":"2.1.0"}"#)

                #expect(try Envelope<[Release]>(linux.body).data?.map(\.version) == ["2.1.0", "2.0.0", "1.2.0"])
                // 1.2.1 shipped for Android and iOS only.
                #expect(try Envelope<[Release]>(ios.body).data?.map(\.version) == ["2.1.0", "2.0.0", "1.2.1", "1.2.0"])
                // Versions compare number by number: 1.10 is newer than 1.2.1.
                #expect(try Envelope<[Release]>(numeric.body).data?.map(\.version) == ["2.1.0", "2.0.0"])
                #expect(try Envelope<[Release]>(latest.body).data?.isEmpty == true)
                let release = try #require(try Envelope<[Release]>(linux.body).data?.first)
                #expect(release.time == 1_736_758_800_000)
                #expect(!release.notes.isEmpty)
            }
        }
    }

    @Test func refusesAVersionCheckWithoutPlatformOrVersionInTheEnvelope() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let noPlatform = try await sysVersion(
                    transport, server, platform: nil, body: #"{"appVersion":"1.0.0"}"#)
                let notJSON = try await sysVersion(transport, server, platform: "linux", body: "1.0.0")
                let noVersion = try await sysVersion(transport, server, platform: "linux", body: #"{"version":"1"}"#)
                let badVersion = try await sysVersion(
                    transport, server, platform: "linux", body: #"{"appVersion":"1.x"}"#)
                let noBody = try await sysVersion(transport, server, platform: "linux", body: nil)
                let wrongMethod = try await get(transport, server, "/sysVersion")

                #expect(noPlatform.status == .ok)
                let missing = try Envelope<[Release]>(noPlatform.body)
                #expect(missing.code == 400)
                #expect(missing.message == "Missing header: platform")
                #expect(missing.data == nil)
                for response in [notJSON, noVersion, badVersion, noBody] {
                    #expect(response.status == .ok)
                    let envelope = try Envelope<[Release]>(response.body)
                    #expect(envelope.code == 400)
                    #expect(envelope.message.count > 20)
                }
                #expect(try Envelope<[Release]>(badVersion.body).message.contains("'1.x'"))
                #expect(wrongMethod.status == .methodNotAllowed)
                #expect(wrongMethod.head.headerFields[.allow] == "POST")
            }
        }
    }

    // MARK: - /weather

    @Test func answersTorontoWithTheWeatherFixture() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let exact = try await get(transport, server, "/weather?city=Toronto")
                let loose = try await get(transport, server, "/weather?city=%20tORONTO%20")

                let envelope = try Envelope<Forecast>(exact.body)
                #expect(exact.status == .ok)
                #expect(envelope.code == 200)
                #expect(envelope.message == "ok")
                #expect(envelope.data == Forecast.toronto)
                #expect(try Envelope<Forecast>(loose.body).data == Forecast.toronto)
            }
        }
    }

    @Test func generatesTheSameForecastForACityOnEveryRequestAndAnotherForAnotherCity() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let first = try await get(transport, server, "/weather?city=Paris")
                let second = try await get(transport, server, "/weather?city=paris")
                let oslo = try await get(transport, server, "/weather?city=Oslo")
                let beijing = try await get(transport, server, "/weather?city=%E5%8C%97%E4%BA%AC")

                let paris = try #require(try Envelope<Forecast>(first.body).data)
                #expect(first.body == second.body)
                #expect(paris.location == "Paris, France")
                #expect(paris.threeDayForecast.map(\.day) == ["Monday", "Tuesday", "Wednesday"])
                let other = try #require(try Envelope<Forecast>(oslo.body).data)
                #expect(other.location == "Oslo, Norway")
                #expect(other.threeDayForecast != paris.threeDayForecast)
                #expect(try Envelope<Forecast>(beijing.body).data?.location == "北京, 中国")
            }
        }
    }

    @Test func answersAnUnknownOrMissingCityWithABusinessError() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let unknown = try await get(transport, server, "/weather?city=Atlantis")
                let missing = try await get(transport, server, "/weather")

                #expect(unknown.status == .ok)
                #expect(
                    String(decoding: unknown.body, as: UTF8.self)
                        == #"{"code":404,"data":null,"message":"Unknown city: Atlantis"}"#)
                let absent = try Envelope<Forecast>(missing.body)
                #expect(absent.code == 400)
                #expect(absent.message == "Missing query item: city")
                #expect(absent.data == nil)
            }
        }
    }

    @Test func keepsTheTestSwitchesOfTheWeatherRoute() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let failing = try await get(transport, server, "/weather?code=TOKEN_EXPIRED&message=Sign%20in%20again")
                let numeric = try await get(transport, server, "/weather?city=Paris&code=500&message=Down")
                let array = try await get(transport, server, "/weather?city=Toronto&shape=array")
                let keyPath = try await get(transport, server, "/weather?city=Toronto&shape=keypath")

                let body = try #require(try JSONSerialization.jsonObject(with: failing.body) as? [String: Any])
                #expect(body["code"] as? String == "TOKEN_EXPIRED")
                #expect(body["message"] as? String == "Sign in again")
                let down = try Envelope<Forecast>(numeric.body)
                #expect(down.code == 500)
                #expect(down.message == "Down")
                #expect(down.data?.location == "Paris, France")
                #expect(try JSONDecoder().decode([Day].self, from: array.body) == Forecast.toronto.threeDayForecast)
                #expect(try JSONDecoder().decode(KeyPathData.self, from: keyPath.body).data == Forecast.toronto)
            }
        }
    }

    // MARK: - /weather/cities

    @Test func pagesThroughEveryCityWithOpaqueCursors() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var cities: [City] = []
                var cursor: String?
                var pages = 0
                repeat {
                    let query = cursor.map { "&cursor=\($0)" } ?? ""
                    let response = try await get(transport, server, "/weather/cities?limit=7" + query)
                    let page = try #require(try Envelope<CityPage>(response.body).data)
                    #expect(page.items.count == 7 || page.cursor == nil)
                    cities += page.items
                    cursor = page.cursor
                    pages += 1
                } while cursor != nil && pages < 100

                let names = cities.map(\.name)
                #expect(cursor == nil)
                #expect(Set(names).count == names.count)
                #expect(names.count >= 50)
                #expect(pages == (names.count + 6) / 7)
                for name in ["北京", "上海", "广州", "深圳", "成都", "杭州", "São Paulo", "Zürich", "Montréal", "Paris"] {
                    #expect(names.contains(name), "\(name) is listed")
                }
                #expect(cities.first { $0.name == "北京" }?.country == "中国")

                // Every listed city is known to /weather and /weather/radar.
                for city in cities {
                    let encoded = try #require(city.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                    let forecast = try await get(transport, server, "/weather?city=\(encoded)")
                    let radar = try await get(transport, server, "/weather/radar?city=\(encoded)&size=16")
                    #expect(
                        try Envelope<Forecast>(forecast.body).data?.location == "\(city.name), \(city.country)")
                    #expect(radar.status == .ok, "radar of \(city.name)")
                }
            }
        }
    }

    @Test func answersTheDefaultPageAndRefusesABadCursorOrLimit() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let first = try await get(transport, server, "/weather/cities")
                let bad = try await get(transport, server, "/weather/cities?cursor=nope")
                let zero = try await get(transport, server, "/weather/cities?limit=0")

                let page = try #require(try Envelope<CityPage>(first.body).data)
                #expect(page.items.count == 10)
                #expect(page.items.first == City(name: "Toronto", country: "Canada"))
                #expect(page.cursor != nil)
                let invalid = try Envelope<CityPage>(bad.body)
                #expect(bad.status == .ok)
                #expect(invalid.code == 400)
                #expect(invalid.message == "Invalid cursor: nope")
                #expect(try Envelope<CityPage>(zero.body).code == 400)
            }
        }
    }

    // MARK: - /weather/radar

    @Test func servesTheRadarImageWithStableValidators() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let first = try await get(transport, server, "/weather/radar?city=Toronto")
                let second = try await get(transport, server, "/weather/radar?city=toronto")
                let head = try await transport.data(
                    for: TransportRequest(method: .head, url: server.url("/weather/radar?city=Toronto")))

                #expect(first.status == .ok)
                #expect(first.body.count == 262_144)
                #expect(first.body == second.body)
                let etag = try #require(first.head.headerFields[.eTag])
                #expect(etag.hasPrefix("\"radar-"))
                #expect(etag.hasSuffix("-262144\""))
                #expect(second.head.headerFields[.eTag] == etag)
                #expect(first.head.headerFields[.contentLength] == "262144")
                #expect(first.head.headerFields[.lastModified] != nil)
                #expect(first.head.headerFields[.acceptRanges] == "bytes")
                #expect(head.status == .ok)
                #expect(head.head.headerFields[.eTag] == etag)
                #expect(head.body.isEmpty)
            }
        }
    }

    @Test func servesARangeUnlessIfRangeNamesAStaleVersion() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let url = server.url("/weather/radar?city=Paris&size=100000")
                let full = try await transport.data(for: TransportRequest(method: .get, url: url))
                let etag = try #require(full.head.headerFields[.eTag])

                let range = try await transport.data(
                    for: TransportRequest(method: .get, url: url, headers: ["Range": "bytes=1000-1999"]))
                let current = try await transport.data(
                    for: TransportRequest(
                        method: .get, url: url, headers: ["Range": "bytes=99000-", "If-Range": etag]))
                let stale = try await transport.data(
                    for: TransportRequest(
                        method: .get, url: url, headers: ["Range": "bytes=1000-1999", "If-Range": #""radar-0-1""#]))
                let past = try await transport.data(
                    for: TransportRequest(method: .get, url: url, headers: ["Range": "bytes=100000-"]))

                #expect(range.status == .partialContent)
                #expect(range.head.headerFields[.contentRange] == "bytes 1000-1999/100000")
                #expect(range.body == full.body[1000..<2000])
                #expect(current.status == .partialContent)
                #expect(current.body == full.body[99_000..<100_000])
                #expect(stale.status == .ok)
                #expect(stale.body == full.body)
                #expect(past.status == .rangeNotSatisfiable)
                #expect(past.head.headerFields[.contentRange] == "bytes */100000")
            }
        }
    }

    @Test func drawsOtherBytesForAnotherCityAndAnswersAnUnknownCityWithHTTP404() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let toronto = try await get(transport, server, "/weather/radar?city=Toronto&size=8192")
                let paris = try await get(transport, server, "/weather/radar?city=Paris&size=8192")
                let unknown = try await get(transport, server, "/weather/radar?city=Atlantis")
                let tooLarge = try await get(transport, server, "/weather/radar?city=Paris&size=268435457")

                #expect(toronto.body.count == 8192)
                #expect(paris.body.count == 8192)
                #expect(toronto.body != paris.body)
                #expect(toronto.head.headerFields[.eTag] != paris.head.headerFields[.eTag])
                #expect(unknown.status == .notFound)
                #expect(
                    String(decoding: unknown.body, as: UTF8.self)
                        == #"{"code":404,"data":null,"message":"Unknown city: Atlantis"}"#)
                #expect(tooLarge.status == .badRequest)
                #expect(try Envelope<Forecast>(tooLarge.body).code == 400)
            }
        }
    }

    // MARK: - /weather/report

    @Test func refusesAReportWithoutAValidToken() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let photo = Data(repeating: 7, count: 1000)
                let anonymous = try await report(transport, server, token: nil, city: "Toronto", photo: photo)
                let forged = try await report(transport, server, token: "t-9-forged", city: "Toronto", photo: photo)

                #expect(anonymous.status == .ok)
                let first = try Envelope<Report>(anonymous.body)
                #expect(first.code == 401)
                #expect(first.message == "Log in first")
                #expect(first.data == nil)
                let second = try Envelope<Report>(forged.body)
                #expect(second.code == 401)
                #expect(second.message == "Token expired")
                #expect(server.receivedRequests().map(\.bodyLength).allSatisfy { $0 > 1000 })
            }
        }
    }

    @Test func acceptsAReportFromALoggedInUserAndDescribesThePhoto() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let token = try await login(transport, server)
                var generator = SeededBytes(seed: 11)
                let photo = Data((0..<300_000).map { _ in generator.next() })

                let response = try await report(
                    transport, server, token: token, city: " zürich ", note: "Föhn wind", photo: photo)
                let again = try await report(transport, server, token: token, city: "上海", photo: Data())

                #expect(response.status == .ok)
                let envelope = try Envelope<Report>(response.body)
                #expect(envelope.code == 200)
                let accepted = try #require(envelope.data)
                #expect(accepted.id == "report-1")
                #expect(accepted.city == "Zürich")
                #expect(accepted.note == "Föhn wind")
                #expect(accepted.bytes == 300_000)
                #expect(accepted.sha256 == SHA256Hasher.hexDigest(of: photo))
                let second = try #require(try Envelope<Report>(again.body).data)
                #expect(second.id == "report-2")
                #expect(second.note == nil)
                #expect(second.bytes == 0)
            }
        }
    }

    @Test func refusesAReportAfterTheTokensExpire() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let token = try await login(transport, server)
                _ = try await transport.data(for: TransportRequest(method: .post, url: server.url("/auth/expire")))

                let response = try await report(transport, server, token: token, city: "Paris", photo: Data([1, 2, 3]))

                let envelope = try Envelope<Report>(response.body)
                #expect(envelope.code == 401)
                #expect(envelope.message == "Token expired")
            }
        }
    }

    @Test func namesTheMissingPartOrTheUnknownCityOfAReport() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let token = try await login(transport, server)
                let noCity = try await report(transport, server, token: token, city: nil, photo: Data([1]))
                let noPhoto = try await report(transport, server, token: token, city: "Paris", photo: nil)
                let unknown = try await report(transport, server, token: token, city: "Atlantis", photo: Data([1]))
                let plain = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: server.url("/weather/report"),
                        headers: ["Authorization": "Bearer \(token)"],
                        body: .string("city=Paris")))

                #expect(try Envelope<Report>(noCity.body).code == 400)
                #expect(try Envelope<Report>(noCity.body).message == "Missing part: city")
                #expect(try Envelope<Report>(noPhoto.body).message == "Missing part: photo")
                #expect(try Envelope<Report>(unknown.body).code == 404)
                #expect(try Envelope<Report>(unknown.body).message == "Unknown city: Atlantis")
                #expect(try Envelope<Report>(plain.body).code == 400)
            }
        }
    }

    // MARK: - Faults

    @Test func playsAScriptedDropAndA503ThenAnswers() async throws {
        try await MockServer.withRunning { server in
            server.faults.script("/weather", [.drop, .unavailable(retryAfter: .seconds(1))])
            // A new transport: its first request opens a connection, so libcurl does not
            // send the dropped request again by itself.
            try await withTransport { transport in
                let dropped = await #expect(throws: TransportError.self) {
                    try await get(transport, server, "/weather?city=Paris")
                }
                let unavailable = try await get(transport, server, "/weather?city=Paris")
                let answered = try await get(transport, server, "/weather?city=Paris")

                #expect(dropped?.category == .emptyReply)
                #expect(unavailable.status == .serviceUnavailable)
                #expect(unavailable.head.headerFields[.retryAfter] == "1")
                #expect(
                    String(decoding: unavailable.body, as: UTF8.self)
                        == #"{"code":503,"data":null,"message":"Service unavailable; try again"}"#)
                #expect(answered.status == .ok)
                #expect(try Envelope<Forecast>(answered.body).data?.location == "Paris, France")
                #expect(
                    server.faults.counters(for: "/weather")
                        == FaultInjector.Counters(requests: 3, drops: 1, unavailable: 1, delayed: 0))
                #expect(server.faults.scriptedOutcomes(for: "/weather").isEmpty)
                #expect(server.requestCount(for: "/weather") == 3)
            }
        }
    }

    @Test func waitsTheDelayOfARouteBeforeAnswering() async throws {
        let options = MockServer.Options(delays: ["/sysTime": .milliseconds(300)])
        try await MockServer.withRunning(options: options) { server in
            try await withTransport { transport in
                server.faults.setDelay(.milliseconds(400), for: "/weather/cities/")

                let time = try await get(transport, server, "/sysTime")
                let cities = try await get(transport, server, "/weather/cities")

                // The server's own counters say each answer waited its delay; no clock is read.
                #expect(time.status == .ok)
                #expect(cities.status == .ok)
                #expect(server.faults.delay(for: "/weather/cities") == .milliseconds(400))
                #expect(server.faults.counters(for: "/sysTime").delayed == 1)
                #expect(server.faults.counters(for: "/weather/cities").delayed == 1)
            }
        }
    }

    @Test func pacesTheRadarBodyAfterEach64KiB() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let control = try await post(transport, server, "/faults/pace?path=/weather/radar&ms=60")
                let clock = ContinuousClock()

                let start = clock.now
                let paced = try await get(transport, server, "/weather/radar?city=Oslo&size=262144")
                let elapsed = clock.now - start

                #expect(try FaultState(control.body).paces == ["/weather/radar": 60])
                #expect(server.faults.pace(for: "/weather/radar") == .milliseconds(60))
                #expect(paced.body.count == 262_144)
                // Four chunks of 64 KiB, with a wait between each and the next.
                #expect(elapsed >= .milliseconds(180))
                server.faults.setPace(.zero, for: "/weather/radar")
                #expect(server.faults.pace(for: "/weather/radar") == .zero)
            }
        }
    }

    @Test func playsAScriptedResetAStallAndA503WithoutRetryAfter() async throws {
        try await MockServer.withRunning { server in
            server.faults.script("/weather", [.reset, .stall, .unavailableWithoutRetryAfter])
            try await withTransport { transport in
                // A reset mid-body, then a stall mid-body that a one-second stall timeout ends
                let reset = await #expect(throws: TransportError.self) {
                    try await get(transport, server, "/weather?city=Paris")
                }
                var options = TransferOptions()
                options.stallTimeout = .seconds(1)
                let stalled = await #expect(throws: TransportError.self) {
                    try await transport.data(
                        for: TransportRequest(method: .get, url: server.url("/weather?city=Paris"), options: options))
                }
                let unavailable = try await get(transport, server, "/weather?city=Paris")

                #expect(reset?.category == .connectionReset, "\(String(describing: reset))")
                #expect(stalled?.category == .stalledTransfer, "\(String(describing: stalled))")
                #expect(unavailable.status == .serviceUnavailable)
                #expect(unavailable.head.headerFields[.retryAfter] == nil)
                #expect(
                    server.faults.counters(for: "/weather")
                        == FaultInjector.Counters(
                            requests: 3, unavailable: 1, unavailableWithoutRetryAfter: 1, resets: 1, stalls: 1))
            }
        }
    }

    @Test func chaosPicksOnlyAmongTheFaultsItIsGiven() async throws {
        let options = MockServer.Options(chaosRate: 1, chaosSeed: 3, chaosFaults: [.unavailableWithoutRetryAfter])
        try await MockServer.withRunning(options: options) { server in
            try await withTransport { transport in
                for _ in 0..<4 {
                    let answer = try await get(transport, server, "/sysTime")
                    #expect(answer.status == .serviceUnavailable)
                    #expect(answer.head.headerFields[.retryAfter] == nil)
                }
                #expect(server.faults.counters(for: "/sysTime").unavailableWithoutRetryAfter == 4)

                // And `/faults/chaos?faults=` changes the set from another process
                _ = try await post(transport, server, "/faults/chaos?rate=1&faults=reset")
                #expect(server.faults.chaosFaults == [.reset])
                await #expect(throws: TransportError.self) { try await get(transport, server, "/sysTime") }
                #expect(server.faults.counters(for: "/sysTime").resets == 1)
                let refused = try await post(transport, server, "/faults/chaos?rate=1&faults=explode")
                #expect(refused.status == .badRequest)
            }
        }
    }

    @Test func theIdempotencyLedgerNamesAnOrderAppliedTwice() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given one order sent twice with its key, and one whose key changed
                for (scope, key) in [("kept", "k1"), ("kept", "k1"), ("changed", "k2"), ("changed", "k3")] {
                    _ = try await transport.data(
                        for: TransportRequest(
                            method: .post, url: server.url("/idempotent?scope=\(scope)"),
                            headers: ["Idempotency-Key": key]))
                }

                // Then the ledger counts every attempt and names the order applied twice
                let ledger =
                    try JSONSerialization.jsonObject(
                        with: try await get(transport, server, "/idempotent/ledger").body) as? [String: Any]
                #expect(ledger?["scopes"] as? Int == 2)
                #expect(ledger?["attempts"] as? Int == 4)
                #expect(ledger?["applied"] as? Int == 3)
                #expect(ledger?["appliedMoreThanOnce"] as? [String] == ["changed"])
                #expect(ledger?["keysInSeveralScopes"] as? [String] == [])
            }
        }
    }

    @Test func failsEveryBusinessRequestAtChaosRateOneAndNoneAtZero() async throws {
        try await MockServer.withRunning(options: MockServer.Options(chaosRate: 1, chaosSeed: 5)) { server in
            for path in businessPaths {
                let outcome = try await attemptAlone(server, path)
                #expect(outcome == .dropped || outcome == .unavailable, "\(path) failed: \(outcome)")
            }
            let counters = server.faults.allCounters()
            #expect(counters.count == businessPaths.count)
            #expect(counters.values.allSatisfy { $0.requests == 1 && $0.faults == 1 })

            server.faults.chaosRate = 0
            try await withTransport { transport in
                for path in businessPaths {
                    #expect(await attempt(transport, server, path) == .answered, "\(path) answered")
                }
            }
        }
    }

    @Test func repeatsTheSameFaultsForTheSameSeed() async throws {
        func outcomes(seed: UInt64) async throws -> [Attempt] {
            try await MockServer.withRunning(options: MockServer.Options(chaosRate: 0.5, chaosSeed: seed)) { server in
                var outcomes: [Attempt] = []
                for _ in 0..<16 {
                    outcomes.append(try await attemptAlone(server, "/sysTime"))
                }
                return outcomes
            }
        }

        let first = try await outcomes(seed: 7)
        let second = try await outcomes(seed: 7)
        let other = try await outcomes(seed: 8)

        #expect(first == second)
        #expect(first != other)
        #expect(first.contains(.answered))
        #expect(first.contains(.dropped))
        #expect(first.contains(.unavailable))
    }

    @Test func controlsTheFaultsOverHTTP() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let script = try await post(transport, server, "/faults/script?path=/weather&outcomes=503:2,ok")
                let delay = try await post(transport, server, "/faults/delay?path=/sysTime&ms=250")
                let chaos = try await post(transport, server, "/faults/chaos?rate=0.25&seed=9")
                let unavailable = try await get(transport, server, "/weather?city=Oslo")
                let state = try await get(transport, server, "/faults")

                #expect(script.status == .ok)
                #expect(try FaultState(script.body).scripts == ["/weather": ["503:2", "ok"]])
                #expect(try FaultState(delay.body).delays == ["/sysTime": 250])
                #expect(try FaultState(chaos.body).chaos == FaultState.Chaos(rate: 0.25, seed: 9))
                #expect(server.faults.chaosRate == 0.25)
                #expect(server.faults.chaosSeed == 9)
                #expect(server.faults.delay(for: "/sysTime") == .milliseconds(250))
                #expect(unavailable.status == .serviceUnavailable)
                #expect(unavailable.head.headerFields[.retryAfter] == "2")
                let current = try FaultState(state.body)
                #expect(current.scripts == ["/weather": ["ok"]])
                #expect(
                    current.counters["/weather"] == FaultState.Count(requests: 1, drops: 0, unavailable: 1, delayed: 0))
                #expect(current.paths.contains("/weather/radar"))

                let reset = try await post(transport, server, "/faults/reset")
                let cleared = try FaultState(reset.body)
                #expect(cleared.chaos == FaultState.Chaos(rate: 0, seed: 0))
                #expect(cleared.scripts.isEmpty)
                #expect(cleared.delays.isEmpty)
                #expect(cleared.counters.isEmpty)
                #expect(try await get(transport, server, "/weather?city=Oslo").status == .ok)
            }
        }
    }

    @Test func refusesFaultControlsThatNameNoBusinessRouteOrNoOutcome() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let generic = try await post(transport, server, "/faults/script?path=/echo&outcomes=drop")
                let outcome = try await post(transport, server, "/faults/script?path=/weather&outcomes=explode")
                let rate = try await post(transport, server, "/faults/chaos?rate=1.5")
                let milliseconds = try await post(transport, server, "/faults/delay?path=/weather&ms=-1")
                let method = try await get(transport, server, "/faults/reset")

                for response in [generic, outcome, rate, milliseconds] {
                    #expect(response.status == .badRequest)
                }
                #expect(String(decoding: generic.body, as: UTF8.self).contains("/weather/radar"))
                #expect(method.status == .methodNotAllowed)
                #expect(server.faults.scriptedOutcomes(for: "/weather").isEmpty)
            }
        }
    }

    @Test func neverFaultsTheTestRoutes() async throws {
        try await MockServer.withRunning(options: MockServer.Options(chaosRate: 1)) { server in
            try await withTransport { transport in
                server.faults.setDelay(.seconds(5), for: "/echo")

                let echo = try await get(transport, server, "/echo?x=1")
                let bytes = try await get(transport, server, "/bytes/100")
                let status = try await get(transport, server, "/status/201")
                let stats = try await get(transport, server, "/auth/stats")

                #expect(echo.status == .ok)
                #expect(bytes.body.count == 100)
                #expect(status.status == .created)
                #expect(stats.status == .ok)
                #expect(server.faults.allCounters().isEmpty)
            }
        }
    }

    @Test func refusesAChaosRateOutsideZeroToOneOnTheCommandLine() async throws {
        let path = try ChildProcess.siblingExecutable("parley-mock-server")

        let result = try await ChildProcess.launch(path, arguments: ["--chaos", "1.5", "--chaos-seed", "3"])

        #expect(result.status != 0)
        #expect(result.output.contains("--chaos must be a probability in 0...1, got 1.5."))
    }

    // MARK: - Helpers

    /// One request of each business route.
    private let businessPaths = [
        "/sysTime", "/weather?city=Paris", "/weather/cities", "/weather/radar?city=Oslo&size=10",
        "POST /auth/login", "POST /sysVersion",
    ]

    /// What became of a request.
    private enum Attempt: Equatable {
        case answered
        case dropped
        case unavailable
        case other(String)
    }

    /// Sends `path` (`POST /path` for a POST) and says what became of it.
    private func attempt(_ transport: CurlTransport, _ server: MockServer, _ path: String) async -> Attempt {
        let isPost = path.hasPrefix("POST ")
        let target = isPost ? String(path.dropFirst("POST ".count)) : path
        do {
            let response = try await transport.data(
                for: TransportRequest(
                    method: isPost ? .post : .get, url: server.url(target), headers: ["platform": "linux"],
                    body: isPost ? .string(#"{"appVersion":"1.0.0"}"#) : nil))
            switch response.status {
            case .ok: return .answered
            case .serviceUnavailable where response.head.headerFields[.retryAfter] == "1": return .unavailable
            default: return .other("HTTP \(response.status.code)")
            }
        } catch let error as TransportError where error.category == .emptyReply {
            return .dropped
        } catch {
            return .other("\(error)")
        }
    }

    /// ``attempt(_:_:_:)`` through a transport of its own, so the request has a connection of
    /// its own: libcurl sends a request again by itself when a connection it reused closes
    /// without an answer, which would hide a drop (or, for a POST, fail to rewind its body).
    private func attemptAlone(_ server: MockServer, _ path: String) async throws -> Attempt {
        try await withTransport { transport in await attempt(transport, server, path) }
    }

    private func get(_ transport: CurlTransport, _ server: MockServer, _ path: String) async throws -> DataResponse {
        try await transport.data(for: TransportRequest(method: .get, url: server.url(path)))
    }

    private func post(_ transport: CurlTransport, _ server: MockServer, _ path: String) async throws -> DataResponse {
        try await transport.data(for: TransportRequest(method: .post, url: server.url(path)))
    }

    private func sysVersion(
        _ transport: CurlTransport,
        _ server: MockServer,
        platform: String?,
        body: String?
    ) async throws -> DataResponse {
        let headers: KeyValuePairs<String, String> =
            if let platform { ["platform": platform, "Content-Type": "application/json"] } else {
                ["Content-Type": "application/json"]
            }
        return try await transport.data(
            for: TransportRequest(
                method: .post, url: server.url("/sysVersion"), headers: headers, body: body.map(RequestBody.string)))
    }

    /// A token of `/auth/login`.
    private func login(_ transport: CurlTransport, _ server: MockServer) async throws -> String {
        let response = try await transport.data(for: TransportRequest(method: .post, url: server.url("/auth/login")))
        return try #require(try Envelope<Token>(response.body).data).token
    }

    /// `POST /weather/report` with the parts given (a `nil` part is left out).
    private func report(
        _ transport: CurlTransport,
        _ server: MockServer,
        token: String?,
        city: String?,
        note: String? = nil,
        photo: Data?
    ) async throws -> DataResponse {
        var form = MultipartFormData()
        if let city { try form.addField(name: "city", value: city) }
        if let note { try form.addField(name: "note", value: note) }
        if let photo { try form.addData(photo, name: "photo", filename: "photo.jpg") }
        let headers: KeyValuePairs<String, String> = if let token { ["Authorization": "Bearer \(token)"] } else { [:] }
        return try await transport.data(
            for: TransportRequest(method: .post, url: server.url("/weather/report"), headers: headers, multipart: form))
    }

    private struct ServerTime: Decodable {
        var time: Int
    }

    private struct Release: Decodable {
        var version: String
        var notes: String
        var time: Int
    }

    private struct City: Decodable, Equatable {
        var name: String
        var country: String
    }

    private struct CityPage: Decodable {
        var items: [City]
        var cursor: String?
    }

    private struct KeyPathData: Decodable {
        var data: Forecast
    }

    private struct Token: Decodable {
        var token: String
    }

    private struct Report: Decodable {
        var id: String
        var city: String
        var note: String?
        var bytes: Int
        var sha256: String
    }

    /// `GET /faults`'s document.
    private struct FaultState: Decodable {
        struct Chaos: Decodable, Equatable {
            var rate: Double
            var seed: UInt64
        }

        struct Count: Decodable, Equatable {
            var requests: Int
            var drops: Int
            var unavailable: Int
            var delayed: Int
        }

        var chaos: Chaos
        var delays: [String: Int]
        var paces: [String: Int]
        var scripts: [String: [String]]
        var counters: [String: Count]
        var paths: [String]

        init(_ body: Data) throws {
            self = try JSONDecoder().decode(FaultState.self, from: body)
        }
    }

    /// Bytes from a seeded generator: a photo that is not a repeating pattern.
    private struct SeededBytes {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}
