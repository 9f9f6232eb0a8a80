import HTTPTypes
import Hummingbird
import NIOCore

// The routes that send bodies of the deterministic pattern, and the slow ones.
extension MockResponder {
    /// The chunk size `/bytes`, `/stall` and `/drop` write in: 256 KiB.
    static let patternChunk = 256 << 10

    /// `/bytes/{n}`: `n` bytes of ``BytePattern`` with `Content-Length`, streamed in chunks so
    /// `n` may be gigabytes.
    ///
    /// The body has validators, a strong `ETag: "pattern-{n}"` and a `Last-Modified` (see
    /// ``ByteVersion``), and one `Range: bytes=…` is honoured (206 with `Content-Range`, or 416
    /// past the end), unless an `If-Range` names another version: then the whole body comes
    /// with 200. Query switches, for download and resume tests:
    ///
    /// - `etag=VALUE`: another version, `ETag: "VALUE"`, with different bytes;
    /// - `weak=1`: the ETag is weak (`W/"…"`), so no `If-Range` can match it;
    /// - `no-validator=1`: neither `ETag` nor `Last-Modified`;
    /// - `no-etag=1`: `Last-Modified` alone;
    /// - `ignore-range=1`: `Range` is ignored, always 200 with the whole body;
    /// - `ignore-if-range=1`: `Range` is honoured whatever `If-Range` says (a broken server);
    /// - `drop-after=K&key=X&drops=D`: the first `D` (1 by default) requests for key `X` (the
    ///   path by default) send `K` bytes of their body and then close the connection;
    ///   `etag-after-drop=VALUE` makes the requests after those use the version `VALUE`;
    /// - `chunk-delay=MS`: waits `MS` milliseconds (at most 10000) after each 64 KiB;
    /// - `signature=S&signature-uses=U`: a signed URL that expires: the first `U` (1 by default)
    ///   requests carrying signature `S` are answered, and every later one gets `403` with
    ///   `{"error": "signature expired"}`, as a storage service answers an expired signed URL.
    func bytes(
        _ count: Int,
        request: Request,
        target: RequestTarget,
        context: MockRequestContext
    ) throws -> Response {
        if let signature = target.value("signature") {
            let uses = try target.integer("signature-uses", in: 0...1_000_000, default: 1)
            if signatureUses.nextAttempt(for: signature) > uses {
                return try .json(
                    .object(["error": .string("signature expired"), "signature": .string(signature)]),
                    status: .forbidden)
            }
        }
        let dropAfter = try target.value("drop-after").map {
            try RequestTarget.integer($0, named: "drop-after", in: 0...count)
        }
        let limit = try target.integer("drops", in: 0...1000, default: 1)
        let drops = dropAfter != nil && dropAttempts.nextAttempt(for: target.value("key") ?? target.path) <= limit
        let etag =
            dropAfter != nil && !drops ? target.value("etag-after-drop") ?? target.value("etag") : target.value("etag")
        let version = ByteVersion(
            count: count, etag: etag, weak: target.value("weak") == "1",
            validators: target.value("no-validator") != "1", entityTag: target.value("no-etag") != "1")
        let chunkDelay = try target.integer("chunk-delay", in: 0...10_000, default: 0)

        var fields: HTTPFields = [.contentType: "application/octet-stream"]
        fields[.acceptRanges] = target.value("ignore-range") == "1" ? "none" : "bytes"
        fields[.eTag] = version.entityTag
        fields[.lastModified] = version.lastModified
        let (range, status) = try Self.selectRange(
            of: request, count: count, version: version, ignoresRange: target.value("ignore-range") == "1",
            ignoresIfRange: target.value("ignore-if-range") == "1", fields: &fields)

        let start = range.lowerBound + version.shift
        let length = range.count
        let chunk = chunkDelay > 0 ? 64 << 10 : MockResponder.patternChunk
        let source = BytePatternSource(maximumChunk: min(length, chunk))
        let channel = context.channel
        let body = ResponseBody(contentLength: length) { writer in
            if drops, let dropAfter {
                try await source.write(from: start, count: min(dropAfter, length)) { try await writer.write($0) }
                try await Task.sleep(for: .milliseconds(50))
                try await channel.close()
                throw ConnectionDropped()
            }
            try await source.write(from: start, count: length, pausingAfterEachChunk: chunkDelay) {
                try await writer.write($0)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: fields, body: body)
    }

    /// Resolves the request's single `Range: bytes=…` against a body of `count` bytes, the way
    /// `/bytes/{n}` and `/weather/radar` answer it (RFC 9110 §14).
    ///
    /// A range is honoured unless `ignoresRange`, or an `If-Range` names another version than
    /// `version` (and not `ignoresIfRange`); a header that is not one byte range is ignored.
    ///
    /// - Parameters:
    ///   - request: The request, for its `Range` and `If-Range` fields.
    ///   - count: The length of the whole body.
    ///   - version: The body's validators, which `If-Range` is compared with.
    ///   - ignoresRange: Whether to send the whole body whatever `Range` says.
    ///   - ignoresIfRange: Whether to honour `Range` whatever `If-Range` says.
    ///   - fields: The answer's header fields; `Content-Range` is added to a 206.
    /// - Returns: The bytes to send, and 206 for a range or 200 for the whole body.
    /// - Throws: ``RouteError`` 416 with `Content-Range: bytes */count` and the other `fields`
    ///   (without `Content-Type`) when the range starts at or past the end.
    static func selectRange(
        of request: Request,
        count: Int,
        version: ByteVersion,
        ignoresRange: Bool = false,
        ignoresIfRange: Bool = false,
        fields: inout HTTPFields
    ) throws -> (range: Range<Int>, status: HTTPResponse.Status) {
        var honoursRange = !ignoresRange
        if honoursRange, !ignoresIfRange, let ifRange = request.headers[.ifRange] {
            honoursRange = version.matches(ifRange: ifRange)
        }
        guard honoursRange, let header = request.headers[.range], let requested = ByteRange.parse(header, length: count)
        else {
            return (0..<count, .ok)
        }
        switch requested {
        case .unsatisfiable:
            var refusal = fields
            refusal[.contentRange] = "bytes */\(count)"
            refusal[.contentType] = nil
            throw RouteError(
                .rangeNotSatisfiable, "range \(header) is past the end of \(count) bytes", headerFields: refusal)
        case .satisfiable(let range):
            fields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(count)"
            return (range, .partialContent)
        }
    }

    /// `/stream-bytes/{n}?chunk=K`: `n` pattern bytes with `Transfer-Encoding: chunked`, one
    /// HTTP chunk per `K` bytes (16384 by default, at most 16 MiB).
    func streamBytes(_ count: Int, target: RequestTarget) throws -> Response {
        let chunk = try target.integer("chunk", in: 1...(16 << 20), default: 16384)
        let source = BytePatternSource(maximumChunk: min(chunk, max(count, 1)))
        let body = ResponseBody(contentLength: nil) { writer in
            try await source.write(from: 0, count: count) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
    }

    /// `/stall?after=N`: 200 with `Content-Length: N + 1000`, `N` pattern bytes (0 by
    /// default), then silence until the client closes the connection or the server stops.
    ///
    /// For read-timeout and low-speed-limit tests. The wait ends as soon as the client goes:
    /// the route turns off half-closure on its connection, so the client's FIN closes the
    /// channel, and it awaits the channel's close. Server shutdown cancels the wait and closes
    /// the channel, so a stalled request never holds up ``MockServer/withRunning(isolation:_:)``.
    func stall(target: RequestTarget, context: MockRequestContext) throws -> Response {
        let after = try target.integer("after", in: 0...(1 << 30), default: 0)
        let source = BytePatternSource(maximumChunk: min(max(after, 1), MockResponder.patternChunk))
        let channel = context.channel
        let body = ResponseBody(contentLength: after + 1000) { writer in
            // Hummingbird allows half-closure, which would leave the channel open (and this
            // route waiting) after the client closes its side.
            try await channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: false).get()
            try await source.write(from: 0, count: after) { try await writer.write($0) }
            try await withTaskCancellationHandler {
                try await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            // The response can never be completed; ending with an error tells Hummingbird so.
            throw ConnectionDropped()
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
    }

    /// `/drop?bytes=N`: 200 with `Content-Length: 2N`, `N` pattern bytes (1000 by default,
    /// at least 1), then the connection is closed: a server dying mid-body.
    ///
    /// curl reports `CURLE_PARTIAL_FILE` ("transfer closed with N bytes remaining"). The bytes
    /// are given 50 ms to reach the socket before the close; for byte-exact scripts use
    /// ``ScriptedSocketServer`` with `.respond(_:thenClose: true)`.
    func drop(target: RequestTarget, context: MockRequestContext) throws -> Response {
        let count = try target.integer("bytes", in: 1...(1 << 30), default: 1000)
        let source = BytePatternSource(maximumChunk: min(count, MockResponder.patternChunk))
        let channel = context.channel
        let body = ResponseBody(contentLength: 2 * count) { writer in
            try await source.write(from: 0, count: count) { try await writer.write($0) }
            try await Task.sleep(for: .milliseconds(50))
            try await channel.close()
            throw ConnectionDropped()
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
    }

    /// `/delay/{ms}`: sleeps `ms` milliseconds (at most 600000) before any byte of the response,
    /// then answers 200 `ok`.
    func delay(milliseconds: Int) async throws -> Response {
        try await Task.sleep(for: .milliseconds(milliseconds))
        return .text("ok")
    }
}

/// Thrown by `/drop`, `/stall` and `/idempotent` once their connection is closed, so
/// Hummingbird writes nothing more on it.
struct ConnectionDropped: Error {}
