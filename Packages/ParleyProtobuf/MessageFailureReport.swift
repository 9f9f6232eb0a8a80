#if Protobuf
    import Foundation
    import Mapping
    import SwiftProtobuf
    import Transport

    /// Turns what went wrong while reading a message into a ``/Mapping/MappingError`` that says
    /// what happened, where, and what to do, in the categories `ResponseDecoder` uses for JSON.
    struct MessageFailureReport {
        var input: MessageInput
        /// The full name of the message asked for, such as `parley.weather.Forecast`.
        var messageName: String

        /// The ``/Mapping/MappingError`` for a swift-protobuf error; any other error unchanged.
        ///
        /// - Parameters:
        ///   - error: What swift-protobuf threw.
        ///   - inData: Whether the bytes were an envelope's data rather than the whole body.
        func error(for error: any Error, inData: Bool = false) -> any Error {
            let place = inData ? "The envelope's data \(input.origin)" : "The body \(input.origin)"
            let path = inData ? "data" : nil
            switch error {
            case BinaryDecodingError.truncated:
                return make(
                    .invalidProtobuf,
                    "\(place) is not a valid `\(messageName)` message: it ends in the middle of a field "
                        + "(\(byteCount)). The transfer may have been cut short, or the bytes are another format.",
                    codingPath: path, found: "a truncated message")
            case BinaryDecodingError.invalidUTF8:
                return make(
                    .dataCorrupted,
                    "\(place) has a string field that is not valid UTF-8 where `\(messageName)` needs text. "
                        + "The server may send another message type, or a `bytes` field where the .proto file says `string`.",
                    codingPath: path, expected: "UTF-8 text", found: "invalid UTF-8")
            case BinaryDecodingError.missingRequiredFields:
                return make(
                    .keyNotFound,
                    "\(place) lacks required fields of `\(messageName)`. Check that the server and the client "
                        + "compile the same .proto file.",
                    codingPath: path, expected: "every required field of `\(messageName)`")
            case BinaryDecodingError.messageDepthLimit:
                return make(
                    .invalidProtobuf,
                    "\(place) nests messages deeper than the decoding options allow (`messageDepthLimit`). "
                        + "Raise the limit in `MessageDecoder.options` if the server really nests that deep.",
                    codingPath: path)
            case is BinaryDecodingError, is AnyUnpackError:
                return make(
                    .invalidProtobuf,
                    "\(place) is not a valid `\(messageName)` message: its \(byteCount) are not the Protocol Buffers "
                        + "binary format\(typeNote). It may be another format, or the server may send another message.",
                    codingPath: path, found: "bytes that are not a message")
            default:
                return error
            }
        }

        func emptyBody() -> MappingError {
            make(
                .emptyBody,
                "The body is empty \(input.origin), where a Protocol Buffers message (`\(messageName)`) was expected, "
                    + "and no Protocol Buffers Content-Type says it is the message with every field at its default. "
                    + "Read an endpoint that answers without a body with `ResponseDecoder.bytes(from:)`.")
        }

        func unexpectedMediaType(_ contentType: String, accepted: Set<String>) -> MappingError {
            let essence = ProtobufMediaType.essence(of: contentType)
            let text = String(decoding: input.body.prefix(16 << 10), as: UTF8.self)
            let kind: String
            let advice: String
            if essence == "application/json" || essence.hasSuffix("+json") {
                kind = "JSON"
                advice =
                    "The server may answer JSON unless asked otherwise: send `Accept: \(ProtobufMediaType.standard)`, "
                    + "or read it with `ResponseDecoder`."
            } else if essence == "text/html" || text.range(of: "<html", options: .caseInsensitive) != nil {
                kind = Self.htmlDescription(text)
                advice = "The URL may lead to a web page or to a proxy's error page rather than to the API."
            } else {
                kind = "\(essence.isEmpty ? "an unnamed media type" : essence)"
                advice =
                    "Add the media type to `MessageDecoder.acceptedMediaTypes` if the server sends messages under it."
            }
            return make(
                .invalidProtobuf,
                "The body \(input.origin) is \(kind), not a Protocol Buffers message (Content-Type: \(contentType)). "
                    + advice,
                expected: accepted.sorted().joined(separator: ", "),
                found: "Content-Type \(contentType)",
                excerpt: Self.textExcerpt(of: input.body))
        }

        func missingData(code: Int64) -> MappingError {
            make(
                .valueNotFound,
                "The envelope \(input.origin) has the success code \(code) but no data, where `\(messageName)` was "
                    + "expected. Use `success(from:)` for an endpoint that answers with the code alone.",
                codingPath: "data", expected: "`\(messageName)`", found: "no data")
        }

        func dataOfAnotherType(_ typeURL: String) -> MappingError {
            let found = typeURL.isEmpty ? "a message without a type URL" : "`\(typeURL)`"
            return make(
                .typeMismatch,
                "The envelope's data \(input.origin) is \(found), not `\(messageName)`. Decode the message type the "
                    + "endpoint answers with, or check that the server packs its answer with `Any.pack`.",
                codingPath: "data", expected: "`\(messageName)`", found: found)
        }

        private var byteCount: String { input.body.count == 1 ? "1 byte" : "\(input.body.count) bytes" }

        private var typeNote: String { input.contentType.map { " (Content-Type: \($0))" } ?? "" }

        private func make(
            _ category: MappingError.Category,
            _ message: String,
            codingPath: String? = nil,
            expected: String? = nil,
            found: String? = nil,
            excerpt: String? = nil
        ) -> MappingError {
            MappingError(
                category, message: message, url: input.url, status: input.status, codingPath: codingPath,
                expected: expected, found: found, excerpt: excerpt)
        }

        /// `an HTML page titled "502 Bad Gateway"`, or `an HTML page`.
        static func htmlDescription(_ text: String) -> String {
            guard let open = text.range(of: "<title", options: .caseInsensitive),
                let start = text[open.upperBound...].firstIndex(of: ">"),
                let close = text[start...].range(of: "</title", options: .caseInsensitive)
            else { return "an HTML page" }
            let title = text[text.index(after: start)..<close.lowerBound]
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !title.isEmpty else { return "an HTML page" }
            return "an HTML page titled \"\(title.count > 80 ? String(title.prefix(80)) + "…" : title)\""
        }

        /// The start of a text body, whitespace collapsed and credentials redacted, at most 200
        /// characters; `nil` for an empty body or one that is not text. A binary body gets none:
        /// its strings could hold credentials that no rule finds without the message's schema.
        static func textExcerpt(of body: Data) -> String? {
            guard !body.isEmpty, let text = String(data: body.prefix(4096), encoding: .utf8),
                !text.unicodeScalars.contains(where: { $0.value < 0x20 && !" \t\r\n".unicodeScalars.contains($0) })
            else { return nil }
            let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let redacted = LogRedaction.redactedText(collapsed)
            return redacted.count > 200 ? String(redacted.prefix(200)) + "…" : redacted
        }
    }
#endif
