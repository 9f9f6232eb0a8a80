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

    /// The business envelope `{"code": CODE, "message": TEXT, "data": DATA}` as JSON, HTTP 200
    /// unless `status` says otherwise.
    ///
    /// - Parameters:
    ///   - code: The business code: 200 for success, else an error such as 400 or 401.
    ///   - message: A sentence: `ok` for success, what went wrong otherwise.
    ///   - data: The payload; `null` for an error.
    ///   - status: The HTTP status, 200 by default: business errors are answered with 200.
    ///   - headerFields: Extra header fields, such as `Retry-After`.
    static func envelope(
        code: Int = 200,
        message: String = "ok",
        data: JSONValue,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:]
    ) throws -> Response {
        try .json(
            .object(["code": .int(code), "message": .string(message), "data": data]), status: status,
            headerFields: headerFields)
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
