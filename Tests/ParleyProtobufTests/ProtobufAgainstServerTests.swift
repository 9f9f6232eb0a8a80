#if Protobuf
    import Feedback
    import FeedbackTesting
    import Forms
    import Foundation
    import HTTPTypes
    import Mapping
    import MockBackend
    import ParleyProtobuf
    import Retry
    import ServerTestSupport
    import SwiftProtobuf
    import TestSupport
    import Testing
    import Transport
    import TransportCurl

    /// ParleyProtobuf against the mock backend's `/proto` routes, over the engine: messages and
    /// envelopes decoded, the same errors and feedback as JSON's, and a message sent as a body.
    @Suite struct ProtobufAgainstServerTests {
        /// A screen that sends the `/proto` forms and warns through a recording presenter.
        struct Screen: Requestable, Warnable, Sendable {
            let clientConfiguration: ClientConfiguration?
            let presenter: any FeedbackPresenter
            var catalog: MessageCatalog { .english }
        }

        func withScreen(_ body: (Screen, RecordingPresenter, MockServer) async throws -> Void) async throws {
            try await withServerAndTransport { server, transport in
                var client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
                client.retry.maximumRetries = 0
                let recorder = RecordingPresenter()
                try await body(Screen(clientConfiguration: client, presenter: recorder), recorder, server)
            }
        }

        static let toronto = Parley_Weather_Forecast.with {
            $0.location = "Toronto, Canada"
            $0.days = [("Partly cloudy", "Monday", 20), ("Showers", "Tuesday", 22), ("Sunny", "Wednesday", 28)].map {
                day in
                Parley_Weather_Forecast.Day.with {
                    $0.conditions = day.0
                    $0.day = day.1
                    $0.temperature = Int32(day.2)
                }
            }
        }

        // MARK: - Messages

        @Test func decodesTheForecastMessage() async throws {
            try await withScreen { screen, _, _ in
                let forecast = try await screen.request(ProtoForm.forecast(city: "toronto"))
                    .decodeMessage(Parley_Weather_Forecast.self).value

                #expect(forecast == Self.toronto)
            }
        }

        @Test func decodesTheSameForecastAsTheJSONRoute() async throws {
            try await withScreen { screen, _, _ in
                let message = try await screen.request(ProtoForm.forecast(city: "北京"))
                    .decodeMessage(Parley_Weather_Forecast.self).value
                let json = try await screen.request(ProtoForm.jsonWeather(city: "北京")).json(at: "data").value

                #expect(message.location == json["location"]?.stringValue)
                #expect(
                    message.days.map(\.day)
                        == json["three_day_forecast"]?.arrayValue?.compactMap { $0["day"]?.stringValue })
                #expect(
                    message.days.map { Int($0.temperature) }
                        == json["three_day_forecast"]?.arrayValue?.compactMap { $0["temperature"]?.intValue })
            }
        }

        @Test func decodesAResponseOfDataForWithTheDecoder() async throws {
            try await withScreen { screen, _, _ in
                let response = try await screen.data(for: ProtoForm.forecast(city: "Toronto"))

                #expect(try MessageDecoder().decode(Parley_Weather_Forecast.self, from: response) == Self.toronto)
                #expect(try MessageDecoder().decode(Parley_Weather_Forecast.self, from: response.body) == Self.toronto)
            }
        }

        @Test func readsAnEmptyBodyWithAProtobufContentTypeAsTheDefaultMessage() async throws {
            try await withScreen { screen, _, _ in
                let forecast = try await screen.request(ProtoForm.forecast(city: "Toronto", answer: "empty-message"))
                    .decodeMessage(Parley_Weather_Forecast.self).value

                #expect(forecast == Parley_Weather_Forecast())
            }
        }

        // MARK: - The envelope

        @Test func decodesTheEnvelopesData() async throws {
            try await withScreen { screen, _, _ in
                let forecast = try await screen.request(ProtoForm.envelope(city: "Toronto"))
                    .decodeEnvelopeMessage(Parley_Weather_Forecast.self).value

                #expect(forecast == Self.toronto)
            }
        }

        @Test func failsAnUnknownCityWithTheEnvelopesBusinessCode() async throws {
            try await withScreen { screen, _, _ in
                let result = await screen.request(ProtoForm.envelope(city: "Atlantis"))
                    .decodeEnvelopeMessage(Parley_Weather_Forecast.self).result

                let error = try #require(result.failure as? BusinessError)
                #expect(error.code == 404)
                #expect(error.serverMessage == "Unknown city: Atlantis")
                #expect(error.status == .ok)
            }
        }

        @Test func acceptsTheCodesTheEnvelopeFormatCallsSuccess() async throws {
            try await withScreen { screen, _, _ in
                let decoder = MessageDecoder(envelope: StandardEnvelope(successCodes: [0]))
                let zero = try await screen.request(ProtoForm.envelope(city: "Toronto", code: 0))
                    .decodeEnvelopeMessage(Parley_Weather_Forecast.self, decoder: decoder).value
                let standard = await screen.request(ProtoForm.envelope(city: "Toronto", code: 0))
                    .decodeEnvelopeMessage(Parley_Weather_Forecast.self).result

                #expect(zero == Self.toronto)
                #expect((standard.failure as? BusinessError)?.code == 0)
            }
        }

        @Test func refusesEnvelopeDataOfAnotherMessageType() async throws {
            try await withScreen { screen, _, _ in
                let result = await screen.request(ProtoForm.envelope(city: "Toronto"))
                    .decodeEnvelopeMessage(Parley_Weather_Report.self).result

                let error = try #require(result.failure as? MappingError)
                #expect(error.category == .typeMismatch)
                #expect(error.codingPath == "data")
                #expect(error.message.contains("parley.weather.Forecast"))
                #expect(error.message.contains("parley.weather.Report"))
            }
        }

        // MARK: - The same errors as JSON's

        @Test func failsATruncatedMessageAsJSONFailsABodyItCannotParse() async throws {
            try await withScreen { screen, _, _ in
                let response = try await screen.data(for: ProtoForm.forecast(city: "Toronto", answer: "truncated"))

                let error = try #require(
                    throws: MappingError.self,
                    performing: { try MessageDecoder().decode(Parley_Weather_Forecast.self, from: response) })
                let json = try #require(
                    throws: MappingError.self, performing: { try ResponseDecoder().json(from: response) })

                #expect(error.category == .invalidProtobuf)
                #expect(json.category == .invalidJSON)
                #expect(error.message.contains("parley.weather.Forecast"))
                #expect(error.message.contains("ends in the middle of a field"))
                #expect(error.url == json.url)
                #expect(error.status == .ok)
            }
        }

        @Test func failsAJSONAnswerForItsContentType() async throws {
            try await withScreen { screen, _, _ in
                let result = await screen.request(ProtoForm.forecast(city: "Toronto", answer: "json"))
                    .decodeMessage(Parley_Weather_Forecast.self).result

                let error = try #require(result.failure as? MappingError)
                #expect(error.category == .invalidProtobuf)
                #expect(error.found == "Content-Type application/json")
                #expect(error.message.contains("is JSON, not a Protocol Buffers message"))
                #expect(error.message.contains("Accept: application/x-protobuf"))
                #expect(error.excerpt?.hasPrefix(#"{"location":"Toronto, Canada""#) == true)
            }
        }

        @Test func failsAnEmptyBodyWithTheCategoryJSONFailsItWith() async throws {
            try await withScreen { screen, _, _ in
                let response = try await screen.data(for: ProtoForm.forecast(city: "Toronto", answer: "empty"))

                let error = try #require(
                    throws: MappingError.self,
                    performing: { try MessageDecoder().decode(Parley_Weather_Forecast.self, from: response) })
                let json = try #require(
                    throws: MappingError.self, performing: { try ResponseDecoder().json(from: response) })

                #expect(error.category == .emptyBody)
                #expect(error.category == json.category)
            }
        }

        @Test func failsARefusedStatusWithJSONsVeryError() async throws {
            try await withScreen { screen, _, _ in
                let response = try await screen.data(for: ProtoForm.forecast(city: "Atlantis"))

                let error = try #require(
                    throws: MappingError.self,
                    performing: { try MessageDecoder().decode(Parley_Weather_Forecast.self, from: response) })
                let json = try #require(
                    throws: MappingError.self, performing: { try ResponseDecoder().json(from: response) })

                #expect(response.status == .notFound)
                #expect(error.category == .unacceptableStatus)
                #expect(error == json)
            }
        }

        // MARK: - Feedback

        @Test func warnsWithTheServersMessageAsForTheJSONEnvelope() async throws {
            try await withScreen { screen, recorder, _ in
                _ = await screen.request(ProtoForm.envelope(city: "Atlantis"))
                    .decodeEnvelopeMessage(Parley_Weather_Forecast.self).warn(screen).result
                _ = await screen.request(ProtoForm.jsonWeather(city: "Atlantis"))
                    .decodeEnvelope(JSONValue.self).warn(screen).result

                #expect(recorder.warnings.map(\.text) == ["Unknown city: Atlantis", "Unknown city: Atlantis"])
                #expect(recorder.warnings.map(\.code) == [404, 404])
            }
        }

        @Test func warnsAnUnreadableMessageAsAnUnreadableJSONAnswer() async throws {
            try await withScreen { screen, recorder, _ in
                _ = await screen.request(ProtoForm.forecast(city: "Toronto", answer: "truncated"))
                    .decodeMessage(Parley_Weather_Forecast.self).warn(screen).result
                _ = await screen.request(ProtoForm.forecast(city: "Toronto", answer: "json"))
                    .decodeMessage(Parley_Weather_Forecast.self).warn(screen).result
                _ = await screen.request(ProtoForm.forecast(city: "Toronto"))
                    .json().warn(screen).result

                let sentence = try #require(MessageCatalog.english[.unreadableAnswer])
                #expect(recorder.warnings.map(\.text) == [sentence, sentence, sentence])
                #expect(recorder.warnings.map(\.key) == [.unreadableAnswer, .unreadableAnswer, .unreadableAnswer])
            }
        }

        // MARK: - A message as the body

        @Test func sendsAMessageThatTheServerEchoes() async throws {
            try await withScreen { screen, _, server in
                let report = Parley_Weather_Report.with {
                    $0.city = "Zürich"
                    $0.note = "Föhn, clear to the Alps"
                    $0.tags = ["wind", "clear"]
                    $0.temperature = -3
                }

                let echoed = try await screen.request(ReportForm(report: report))
                    .decodeMessage(Parley_Weather_Report.self).value

                #expect(echoed == report)
                let sent = try #require(server.receivedRequests().last { $0.path == "/proto/echo" })
                #expect(sent.method == .post)
                #expect(sent.values(forHeader: "Content-Type") == ["application/x-protobuf"])
                #expect(sent.values(forHeader: "Accept") == ["application/x-protobuf"])
                #expect(sent.bodyLength == (try report.serializedData()).count)
            }
        }

        @Test(arguments: ["application/protobuf", "application/vnd.google.protobuf"])
        func sendsAndReadsTheOtherMediaTypes(_ mediaType: String) async throws {
            try await withScreen { screen, _, _ in
                let report = Parley_Weather_Report.with { $0.city = "Oslo" }

                let response = try await screen.request(ReportForm(report: report, contentType: mediaType)).value

                #expect(response.head.headerFields[.contentType] == mediaType)
                #expect(try MessageDecoder().decode(Parley_Weather_Report.self, from: response) == report)
            }
        }
    }
#endif
