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
    /// Honours one `Range: bytes=…` (206 with `Content-Range`, or 416 past the end) for resume
    /// tests, and says so with `Accept-Ranges: bytes`.
    func bytes(_ count: Int, request: Request) throws -> Response {
        var fields: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
        var range = 0..<count
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range], let requested = ByteRange.parse(header, length: count) {
            switch requested {
            case .unsatisfiable:
                throw RouteError(
                    .rangeNotSatisfiable,
                    "range \(header) is past the end of \(count) bytes",
                    headerFields: [.contentRange: "bytes */\(count)"]
                )
            case .satisfiable(let satisfiable):
                range = satisfiable
                status = .partialContent
                fields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(count)"
            }
        }
        let sent = range
        let source = BytePatternSource(maximumChunk: min(sent.count, MockResponder.patternChunk))
        let body = ResponseBody(contentLength: sent.count) { writer in
            try await source.write(from: sent.lowerBound, count: sent.count) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: fields, body: body)
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

/// Thrown by `/drop` and `/stall` once their connection is closed, so Hummingbird writes
/// nothing more on it.
struct ConnectionDropped: Error {}
