import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import Testing
import Transport
import TransportCurl
import TransportTesting

@Suite struct UploadFormTests {
    struct Avatar: UploadDataFormable {
        var path: String { "/avatar" }
        var data: Data { Data("PNG...".utf8) }
        var contentType: String { "image/png" }
    }

    struct Backup: UploadFileFormable {
        let fileURL: URL
        var path: String { "/backup" }
        var method: HTTPRequest.Method { .put }
    }

    struct Live: UploadStreamFormable {
        var path: String { "/live" }
        var stream: RequestBody {
            .stream(length: 6) {
                AsyncStream<Data> { continuation in
                    continuation.yield(Data("abc".utf8))
                    continuation.yield(Data("def".utf8))
                    continuation.finish()
                }
            }
        }
    }

    struct Photo: UploadMultipartFormable {
        var path: String { "/photos" }
        var parameters: Parameters { ["album": "holidays"] }
        var multipart: MultipartFormData {
            var form = MultipartFormData()
            try? form.addField(name: "caption", value: "Lake")
            return form
        }
    }

    @Test func uploadsEveryKindOfBody() async throws {
        let (stub, configuration) = stubbed()
        let screen = Screen(clientConfiguration: configuration)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-forms-\(UUID()).bin")
        try Data("file contents".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        _ = try await screen.upload(Avatar()).value
        _ = try await screen.upload(Backup(fileURL: file)).value
        _ = try await screen.upload(Live()).value
        _ = try await screen.upload(Photo()).value

        let sent = stub.requests
        #expect(sent.map(\.head.method) == [.post, .put, .post, .post])
        #expect(sent[0].body == Data("PNG...".utf8))
        #expect(sent[0].head.headerFields[.contentType] == "image/png")
        #expect(sent[1].body == Data("file contents".utf8))
        #expect(sent[2].body == Data("abcdef".utf8))
        #expect(sent[3].head.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(String(decoding: sent[3].body ?? Data(), as: UTF8.self).contains("name=\"caption\""))
        #expect(sent[3].url.hasSuffix("/photos?album=holidays&app_version=2.1.0"))
    }
}
