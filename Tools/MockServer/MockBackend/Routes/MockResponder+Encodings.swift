import HTTPTypes
import Hummingbird

// The content-coding routes.
extension MockResponder {
    /// `/gzip` and `/deflate`: a JSON object compressed with the format's `Content-Encoding`.
    ///
    /// The object is `{"gzipped": true, …}` or `{"deflated": true, …}` plus the request's
    /// `method` and `headers`, so a test can see that the client both decoded the body and sent
    /// `Accept-Encoding`. `/deflate` uses the zlib format (RFC 1950), which is what
    /// `Content-Encoding: deflate` means in practice.
    func compressedJSON(_ request: Request, format: ZlibCompressor.Format) throws -> Response {
        let flag = format == .gzip ? "gzipped" : "deflated"
        let payload: JSONValue = .object([
            flag: .bool(true),
            "method": .string(request.method.rawValue),
            "headers": .stringLists(MockResponder.headerLists(of: request.head)),
        ])
        let compressed = try ZlibCompressor.compress(try payload.serialized(), format: format)
        return .bytes(
            compressed,
            headerFields: [
                .contentType: "application/json",
                .contentEncoding: format == .gzip ? "gzip" : "deflate",
            ]
        )
    }

    /// `/bad-encoding`: `Content-Encoding: gzip` on a body that is plain text, so a decoding
    /// client must fail (curl: `CURLE_BAD_CONTENT_ENCODING`).
    func badEncoding() -> Response {
        .text("this body is plain text, not gzip\n", headerFields: [.contentEncoding: "gzip"])
    }
}
