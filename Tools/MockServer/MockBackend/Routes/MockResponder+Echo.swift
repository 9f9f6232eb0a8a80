import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

// The routes that describe the request back to the client: /echo, /upload, /cookies.
extension MockResponder {
    /// The largest body `/echo` repeats in `body` and `bodyBase64`: 16 MiB. Longer bodies are
    /// still counted and hashed, and those two fields are `null`.
    static let echoBodyLimit = 16 << 20

    /// `/echo`: the request as JSON.
    ///
    /// ```json
    /// {"method": "POST", "path": "/echo", "target": "/echo?a=1", "query": {"a": ["1"]},
    ///  "headers": {"host": ["127.0.0.1:8080"], …}, "body": "hi", "bodyBase64": "aGk=",
    ///  "bodyLength": 2, "bodySHA256": "8f43…"}
    /// ```
    ///
    /// `body` is `null` when the body is not UTF-8; both body fields are `null` past
    /// ``echoBodyLimit``. Header names are lowercased; values keep their order.
    func echo(_ request: Request, target: RequestTarget, entry: RequestRecorder.Entry) async throws -> Response {
        let body = try await BodySummary.read(request.body, keepingUpTo: MockResponder.echoBodyLimit, entry: entry)
        let payload: JSONValue = .object([
            "method": .string(request.method.rawValue),
            "path": .string(target.path),
            "target": .string(target.raw),
            "query": .stringLists(target.groupedQuery),
            "headers": .stringLists(MockResponder.headerLists(of: request.head)),
            "body": .string(orNull: body.bytes.flatMap { String(validating: $0, as: UTF8.self) }),
            "bodyBase64": .string(orNull: body.bytes.map { Data($0).base64EncodedString() }),
            "bodyLength": .int(body.length),
            "bodySHA256": .string(body.sha256),
        ])
        return try .json(payload)
    }

    /// `/upload` (POST or PUT): reads the body as it streams in, keeping none of it, and answers
    /// `{"bodyLength": N, "bodySHA256": hex, "contentEncoding": …, "contentLength": …,
    /// "transferEncoding": …, "contentType": …, "decodedLength": …, "decodedSHA256": …}`, each
    /// header `null` when absent.
    ///
    /// A body sent with `Content-Encoding: gzip` is also inflated as it arrives: `bodyLength` and
    /// `bodySHA256` describe the bytes received, `decodedLength` and `decodedSHA256` the bytes
    /// they inflate to (both `null` without gzip). A gzip body that does not inflate is answered
    /// 400, once it has been read to its end.
    func upload(_ request: Request, entry: RequestRecorder.Entry) async throws -> Response {
        guard request.method == .post || request.method == .put else {
            try await drainBody(of: request, into: entry)
            throw RouteError(
                .methodNotAllowed,
                "/upload accepts POST and PUT, not \(request.method.rawValue)",
                headerFields: [.allow: "POST, PUT"]
            )
        }
        let headers = request.headers
        let body: BodySummary
        var decoded: BodySummary?
        if headers[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() == "gzip" {
            (body, decoded) = try await BodySummary.readGzip(request.body, entry: entry)
        } else {
            body = try await BodySummary.read(request.body, keepingUpTo: nil, entry: entry)
        }
        return try .json(
            .object([
                "method": .string(request.method.rawValue),
                "bodyLength": .int(body.length),
                "bodySHA256": .string(body.sha256),
                "decodedLength": decoded.map { .int($0.length) } ?? .null,
                "decodedSHA256": .string(orNull: decoded?.sha256),
                "contentEncoding": .string(orNull: headers[.contentEncoding]),
                "contentLength": .string(orNull: headers[.contentLength]),
                "transferEncoding": .string(orNull: headers[.transferEncoding]),
                "contentType": .string(orNull: headers[.contentType]),
            ])
        )
    }

    /// `/cookies`: `{"cookies": {name: value}}` from the request's `Cookie` headers.
    func cookies(_ request: Request) throws -> Response {
        var cookies: [String: JSONValue] = [:]
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                cookies[name] = .string(parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }
        }
        return try .json(.object(["cookies": .object(cookies)]))
    }

    /// The request's header fields grouped by lowercased name, `Host` included.
    static func headerLists(of head: HTTPRequest) -> [String: [String]] {
        var lists: [String: [String]] = [:]
        for field in wireHeaderFields(of: head) {
            lists[field.name.canonicalName, default: []].append(field.value)
        }
        return lists
    }
}

/// The length and digest of a request body, and the body itself when it is small enough.
struct BodySummary {
    /// The number of bytes read.
    var length = 0
    /// The lowercase hexadecimal SHA-256 of the bytes read.
    var sha256 = ""
    /// The bytes, when there were no more than the limit asked for; `nil` otherwise.
    var bytes: [UInt8]?

    /// Reads `body` to its end, hashing as it goes and reporting progress to `entry`.
    ///
    /// - Parameter limit: Keep the bytes when there are at most this many; `nil` keeps none.
    static func read(
        _ body: RequestBody,
        keepingUpTo limit: Int?,
        entry: RequestRecorder.Entry
    ) async throws -> BodySummary {
        var summary = BodySummary(bytes: limit == nil ? nil : [])
        var hasher = SHA256()
        for try await buffer in body {
            buffer.withUnsafeReadableBytes { hasher.update($0) }
            summary.length += buffer.readableBytes
            if let limit, summary.length <= limit {
                summary.bytes?.append(contentsOf: buffer.readableBytesView)
            } else {
                summary.bytes = nil
            }
            entry.setBodyLength(summary.length)
        }
        entry.setBodyLength(summary.length)
        summary.sha256 = hasher.finalizeHex()
        return summary
    }
}
