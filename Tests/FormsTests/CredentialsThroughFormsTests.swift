import Forms
import Foundation
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// Credentials on a client and on a form go through `TransferOptions.credentials` to the engine,
/// which sends them; the logging plugin never shows them.
@Suite struct CredentialsThroughFormsTests {
    /// The mock server's echo, with credentials of its own when it has some.
    struct EchoForm: RequestFormable {
        var credentials: HTTPCredentials?
        var path: String { "/echo" }
        func configure(_ client: inout ClientConfiguration) {
            if let credentials { client.transferOptions.credentials = credentials }
        }
    }

    struct EchoScreen: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    /// The `Authorization` field the mock server received for `form`.
    private func authorization(_ form: EchoForm, client: ClientConfiguration) async throws -> String? {
        let response = try await EchoScreen(clientConfiguration: client).request(form).value
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let headers = try #require(object["headers"] as? [String: [String]])
        return headers["authorization"]?.first
    }

    @Test func aClientsCredentialsAndAFormsOwnAreSentAndNeverLogged() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            let logs = LogCapture()
            var client = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            client.isLoggingEnabled = true
            client.logger = logs.logger(level: .trace)
            client.transferOptions.credentials = .basic(user: "client", password: "client-secret")
            do {
                let fromClient = try await authorization(EchoForm(), client: client)
                #expect(fromClient == "Basic " + Data("client:client-secret".utf8).base64EncodedString())
                let fromForm = try await authorization(
                    EchoForm(credentials: .basic(user: "form", password: "form-secret")), client: client)
                #expect(fromForm == "Basic " + Data("form:form-secret".utf8).base64EncodedString())
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
            let log = logs.messages.joined(separator: "\n")
            #expect(log.contains("→ GET"))
            for secret in ["client-secret", "form-secret", Data("client:client-secret".utf8).base64EncodedString()] {
                #expect(!log.contains(secret))
            }
        }
    }
}
