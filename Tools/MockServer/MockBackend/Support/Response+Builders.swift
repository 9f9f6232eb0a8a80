import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// A complete response whose body is `text`, `text/plain` unless `headerFields` says otherwise.
    static func text(
        _ text: String,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:]
    ) -> Response {
        var fields = headerFields
        if fields[.contentType] == nil {
            fields[.contentType] = "text/plain; charset=utf-8"
        }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A complete response whose body is `value` serialised, `application/json` unless
    /// `headerFields` says otherwise.
    static func json(
        _ value: JSONValue,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:]
    ) throws -> Response {
        var fields = headerFields
        if fields[.contentType] == nil {
            fields[.contentType] = "application/json"
        }
        return .bytes(try value.serialized(), status: status, headerFields: fields)
    }

    /// A complete response whose body is `bytes`, with `Content-Length`.
    static func bytes(
        _ bytes: [UInt8],
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:]
    ) -> Response {
        Response(status: status, headers: headerFields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
