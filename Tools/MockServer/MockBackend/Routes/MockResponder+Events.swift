import HTTPTypes
import Hummingbird
import NIOCore

// The server-sent events routes, for event stream tests: a numbered stream that drops, resumes
// after the `Last-Event-ID` it receives, and records what it sent.
extension MockResponder {
    /// `/events?count=N&drop-after=K&retry=MS&interval=MS&size=B&end=E&key=K&content-type=T`: a
    /// `text/event-stream` of events numbered 1 to `N` (10 by default), resuming after the
    /// number a `Last-Event-ID` names.
    ///
    /// Each connection writes the comment `: connected`, then its events, each as
    /// `id: I`, `event: tick`, `data: event I` (and a second `data` line of `B - 1` dots, so
    /// that the data has `B` bytes more, when `size=B` is given), and a blank line. The first
    /// event of a connection also carries `retry: MS` when `retry` is given. `interval=MS`
    /// waits before each event (0 by default). `drop-after=K` closes the connection without
    /// ending the body after `K` events of a connection (a drop, as a server dying); the body
    /// otherwise ends cleanly after event `N`. A connection with nothing left to send gets
    /// `end`: `204` (the default, which tells a client to stop reconnecting) or `close` (a
    /// stream that ends at once). `content-type=T` answers with `T` instead of
    /// `text/event-stream`. Connections, `Last-Event-ID`s and events written are counted per
    /// `key` (the whole target by default) for `/events/stats`.
    func events(_ request: Request, target: RequestTarget, context: MockRequestContext) throws -> Response {
        let count = try target.integer("count", in: 0...10_000_000, default: 10)
        let dropAfter = try target.value("drop-after").map {
            try RequestTarget.integer($0, named: "drop-after", in: 1...10_000_000)
        }
        let retry = try target.value("retry").map { try RequestTarget.integer($0, named: "retry", in: 0...600_000) }
        let interval = try target.integer("interval", in: 0...600_000, default: 0)
        let size = try target.integer("size", in: 0...(1 << 20), default: 0)
        let end = target.value("end") ?? "204"
        guard end == "204" || end == "close" else {
            throw RouteError(.badRequest, "end must be 204 or close, got '\(end)'")
        }
        let key = target.value("key") ?? target.raw
        let lastEventID = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
        eventLedger.connect(key, lastEventID: lastEventID)
        let first = (lastEventID.flatMap { Int($0) } ?? 0) + 1
        if first > count, end == "204" {
            return Response(status: .noContent)
        }
        let contentType = target.value("content-type") ?? "text/event-stream"
        let ledger = eventLedger
        let channel = context.channel
        let padding = size > 0 ? "data: " + String(repeating: ".", count: size - 1) + "\n" : ""
        let body = ResponseBody { writer in
            ledger.changeOpen(key, by: 1)
            defer { ledger.changeOpen(key, by: -1) }
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            var written = 0
            for number in first...max(first, count) where number <= count {
                if let dropAfter, written == dropAfter {
                    // As `/drop` does: give the bytes a moment to reach the socket, then close.
                    try await Task.sleep(for: .milliseconds(50))
                    try await channel.close()
                    throw ConnectionDropped()
                }
                if interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                var text = written == 0 ? retry.map { "retry: \($0)\n" } ?? "" : ""
                text += "id: \(number)\nevent: tick\ndata: event \(number)\n\(padding)\n"
                try await writer.write(ByteBuffer(string: text))
                ledger.recordSent(key)
                written += 1
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"], body: body)
    }

    /// `/events/stats?key=K`: what `/events` did for key `K`: `{"connections", "open", "sent",
    /// "lastEventIDs"}`, the `Last-Event-ID` of each connection in order (`null` where none).
    func eventStats(target: RequestTarget) throws -> Response {
        guard let key = target.value("key") else { throw RouteError(.badRequest, "/events/stats needs ?key=") }
        return try .json(eventLedger.record(of: key).json)
    }
}
