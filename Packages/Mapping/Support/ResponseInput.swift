import Foundation
package import HTTPTypes
import Transport

/// What the decoder knows about a body: the bytes and, for a response, where it came from.
package struct ResponseInput {
    var body: Data
    var url: String?
    var status: HTTPResponse.Status?
    /// The response's head, for the `Content-Type`, which only errors and text decoding read:
    /// an engine's head stays unbuilt unless one of them does.
    private var responseHead: LazyResponseHead?
    /// The envelope an ``EnvelopeClassifier`` read in the response, when one did.
    var reading: EnvelopeReading?

    init(_ response: DataResponse) {
        body = response.body
        url = response.url
        status = response.status
        responseHead = response.lazyHead
        reading = response.classification?.reading as? EnvelopeReading
    }

    init(_ data: Data) {
        body = data
        url = nil
        status = nil
    }

    /// The `Content-Type` of the response; `nil` for bare data.
    var contentType: String? { responseHead?.head(keeping: Self.contentTypeOnly).headerFields[.contentType] }

    /// The one field ``contentType`` reads from a head the engine has not built.
    private static let contentTypeOnly: FieldNameSet = [.contentType]

    /// Whether the body has nothing but whitespace.
    var isBlank: Bool {
        // Over the bytes rather than through `Data`'s iterator, which copies and checks as it goes.
        body.withUnsafeBytes { bytes in
            bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
    }

    /// `in the response from URL (HTTP 200 OK)`, or `in the body` when nothing is known.
    var origin: String { Self.origin(url: url, status: status) }

    /// Where a body came from, in the words of Mapping's errors: `in the response from URL
    /// (HTTP 200 OK)`, or `in the body` when neither is known. Other body decoders (Protocol
    /// Buffers) word their errors with it too.
    package static func origin(url: String?, status: HTTPResponse.Status?) -> String {
        switch (url, status) {
        case (let url?, let status?): "in the response from \(url) (HTTP \(describe(status)))"
        case (let url?, nil): "in the response from \(url)"
        case (nil, let status?): "in the response (HTTP \(describe(status)))"
        case (nil, nil): "in the body"
        }
    }

    /// `200 OK`.
    static func describe(_ status: HTTPResponse.Status) -> String {
        status.reasonPhrase.isEmpty ? String(status.code) : "\(status.code) \(status.reasonPhrase)"
    }

    /// The first 16 KiB of the body as text, for telling HTML from JSON.
    var head: String {
        String(decoding: body.prefix(BodyExcerpt.scanLimit), as: UTF8.self)
    }
}
