import Forms
import Foundation
import HTTPTypes
import Mapping
import MockBackend
import ServerTestSupport
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// The raw answer beside the typed one: `withResponse()` after any decoding method gives the
/// model and the response it was decoded from, decoded once, its body not copied.
@Suite struct DecodedResponseTests {
    /// The location of a forecast, counting how many times it is decoded.
    struct CountedLocation: Decodable, Sendable, Equatable {
        static let decodings = Atomic(0)
        let location: String

        enum CodingKeys: String, CodingKey { case location }

        init(from decoder: any Decoder) throws {
            Self.decodings.add(1, ordering: .relaxed)
            location = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .location)
        }
    }

    @Test func theModelComesWithTheBytesAndHeadItWasDecodedFromDecodedOnce() async throws {
        try await withServerAndTransport { server, curl in
            // Given a request, its plain decoding, and the same decoding with its response
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            let form = WeatherForm.forecast(city: "Toronto")
            let sent = try await screen.data(for: form).body
            let handle = screen.request(form)
            let decoded = handle.decodeEnvelope(CountedLocation.self)
            let kept = decoded.withResponse()
            let before = CountedLocation.decodings.load(ordering: .relaxed)

            // When both are awaited
            let both = try await kept.value
            let plain = try await decoded.value
            let raw = try await handle.value

            // Then the model is the plain decoding's, decoded once, beside the bytes the server sent
            #expect(both.value == plain)
            #expect(both.value.location == "Toronto, Canada")
            #expect(CountedLocation.decodings.load(ordering: .relaxed) - before == 1, "the decoder ran once")
            #expect(both.response.body == sent)
            #expect(both.response.head.status == .ok)
            #expect(both.response.head.headerFields[.contentType] == raw.head.headerFields[.contentType])
            // The request's own bytes, not a copy of them.
            let shared = both.response.body.withUnsafeBytes { mine in
                raw.body.withUnsafeBytes { theirs in mine.baseAddress == theirs.baseAddress }
            }
            #expect(shared)
        }
    }

    @Test func everyDecodingKeepsItsResponseTheSameWay() async throws {
        try await withServerAndTransport { server, curl in
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: curl, baseURL: server.baseURL))
            let form = WeatherForm.forecast(city: "Paris")
            let handle = screen.request(form)
            let atPath = try await handle.decode(String.self, at: "data.location").withResponse().value
            let json = try await handle.json(at: "data.location").withResponse().value
            let text = try await handle.string().withResponse().value
            let raw = try await handle.value
            #expect(atPath.value == "Paris, France")
            #expect(json.value == .string("Paris, France"))
            #expect(text.value == String(decoding: raw.body, as: UTF8.self))
            #expect([atPath.response.body, json.response.body, text.response.body].allSatisfy { $0 == raw.body })
        }
    }

    @Test func aHandleWithoutACollectedResponseSaysSo() async throws {
        let handle = RequestHandle<Int>(finished: .success(7)).withResponse()
        let error = try #require(await handle.result.failure as? MappingError)
        #expect(error.category == .other)
        #expect(error.message.contains("withResponse() needs a handle of a request whose response is collected"))
    }
}
