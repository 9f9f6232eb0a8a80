import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// `/resumable`: the server side of resumable uploads, draft-ietf-httpbis-resumable-upload-05
/// (interop version 6), with scripted faults.
///
/// - `POST /resumable` creates an upload: a `104 Upload Resumption Supported` with
///   `Location: /resumable/{id}` before the body is read, then the body appended; `201` with
///   `Upload-Complete: ?1` and `{"length", "sha256"}` once whole. Query items script it:
///   `drop-after=N` closes the connection once the upload holds N bytes (once);
///   `conflict=1` answers the first append `409` without `Upload-Offset`; `max-append=N`
///   announces `Upload-Limit: max-append-size=N`; `pace-ms=M` sleeps M ms after each buffer;
///   `no-104=1` sends the `Location` in the final response only; `unsupported=1` behaves as a
///   server that knows nothing of the draft (no `104`, a plain `200`).
/// - `HEAD /resumable/{id}`: `204` with `Upload-Offset`, `Upload-Complete`, `Upload-Limit`.
/// - `PATCH /resumable/{id}`: appends at `Upload-Offset` (`409` with the right one otherwise).
/// - `DELETE /resumable/{id}`: `204`; the resource answers `404` from then on.
/// - `GET /resumable/{id}`: `{"offset", "complete", "deleted", "sha256"}` of what it received.
extension MockResponder {
    /// Parses `/resumable` and `/resumable/{id}`.
    static func resumableRoute(_ segments: [Substring]) -> MockRoute? {
        guard segments.first == "resumable" else { return nil }
        switch segments.count {
        case 1: return .resumable(id: nil)
        case 2: return Int(segments[1]).map { .resumable(id: $0) }
        default: return nil
        }
    }

    /// Answers a `/resumable` request.
    func resumable(
        id: Int?, request: Request, target: RequestTarget, context: MockRequestContext, entry: RequestRecorder.Entry
    ) async throws -> Response {
        guard let id else {
            guard request.method == .post else {
                throw RouteError(.methodNotAllowed, "Create an upload with POST /resumable.")
            }
            return try await createUpload(request: request, target: target, context: context, entry: entry)
        }
        // A new request of the protocol supersedes a transfer still in progress (a client that was
        // killed, say); the report (`GET`) does not.
        let generation = resumableUploads.update(id) { resource -> Int in
            if request.method != .get { resource.generation += 1 }
            return resource.generation
        }
        switch request.method {
        case .head:
            try await drainBody(of: request, into: entry)
            guard let resource = resumableUploads.update(id, { $0 }), !resource.deleted else {
                return Response(status: .notFound)
            }
            return Response(status: .noContent, headers: offsetFields(resource))
        case .patch:
            return try await appendUpload(
                id, generation: generation ?? 0, request: request, context: context, entry: entry)
        case .delete:
            try await drainBody(of: request, into: entry)
            guard resumableUploads.update(id, { $0.deleted = true }) != nil else { return Response(status: .notFound) }
            return Response(status: .noContent)
        case .get:
            try await drainBody(of: request, into: entry)
            guard let resource = resumableUploads.update(id, { $0 }) else { return Response(status: .notFound) }
            return try .json(report(resource))
        default:
            throw RouteError(.methodNotAllowed, "An upload resource takes HEAD, PATCH, DELETE and GET.")
        }
    }

    private func createUpload(
        request: Request, target: RequestTarget, context: MockRequestContext, entry: RequestRecorder.Entry
    ) async throws -> Response {
        let unsupported = target.value("unsupported") == "1"
        var resource = ResumableUploadLedger.Resource()
        resource.length = request.headers[lengthName].flatMap { Int($0) }
        resource.dropAfter = try target.value("drop-after").map { _ in
            try target.integer("drop-after", in: 0...(1 << 40), default: 0)
        }
        resource.conflictPending = target.value("conflict") == "1"
        resource.maximumAppendSize = try target.value("max-append").map { _ in
            try target.integer("max-append", in: 1...(1 << 40), default: 1)
        }
        resource.paceMilliseconds = try target.integer("pace-ms", in: 0...10_000, default: 0)
        let id = resumableUploads.create(resource)
        let location = "/resumable/\(id)"
        if !unsupported, target.value("no-104") != "1" {
            try await sendInterim(location: location, on: context.channel)
        }
        guard try await receive(into: id, generation: 0, request: request, context: context, entry: entry) else {
            throw ConnectionDropped()
        }
        let complete = request.headers[completeName] != "?0"
        let finished = resumableUploads.update(id) { resource -> ResumableUploadLedger.Resource in
            if complete, resource.length.map({ $0 == resource.bytes.count }) ?? true { resource.complete = true }
            return resource
        }
        guard let finished else { return Response(status: .notFound) }
        if unsupported {
            return try .json(.object(["length": .int(finished.bytes.count)]))
        }
        var fields = offsetFields(finished)
        fields[.location] = location
        return try .json(report(finished), status: finished.complete ? .created : .ok, headerFields: fields)
    }

    private func appendUpload(
        _ id: Int, generation: Int, request: Request, context: MockRequestContext, entry: RequestRecorder.Entry
    ) async throws -> Response {
        guard let resource = resumableUploads.update(id, { $0 }), !resource.deleted else {
            try await drainBody(of: request, into: entry)
            return Response(status: .notFound)
        }
        guard request.headers[.contentType] == "application/partial-upload" else {
            try await drainBody(of: request, into: entry)
            throw RouteError(.unsupportedMediaType, "An append is Content-Type: application/partial-upload.")
        }
        let conflict = resumableUploads.update(id) { resource -> Bool in
            defer { resource.conflictPending = false }
            return resource.conflictPending
        }
        let offset = request.headers[offsetName].flatMap { Int($0) }
        if conflict == true {
            try await drainBody(of: request, into: entry)
            return Response(status: .conflict)
        }
        guard offset == resource.bytes.count else {
            try await drainBody(of: request, into: entry)
            return Response(status: .conflict, headers: offsetFields(resource))
        }
        guard !resource.complete else {
            try await drainBody(of: request, into: entry)
            throw RouteError(.badRequest, "The upload is already complete.")
        }
        guard try await receive(into: id, generation: generation, request: request, context: context, entry: entry)
        else {
            throw ConnectionDropped()
        }
        let complete = request.headers[completeName] == "?1"
        guard
            let finished = resumableUploads.update(
                id,
                { resource -> ResumableUploadLedger.Resource in
                    if complete, resource.length.map({ $0 == resource.bytes.count }) ?? true {
                        resource.complete = true
                    }
                    return resource
                })
        else { return Response(status: .notFound) }
        if finished.complete {
            return try .json(report(finished), headerFields: offsetFields(finished))
        }
        return Response(status: .noContent, headers: offsetFields(finished))
    }

    /// Appends the request's body to the resource; `false` when the script dropped the connection
    /// or a later request to the resource superseded this one.
    private func receive(
        into id: Int, generation: Int, request: Request, context: MockRequestContext, entry: RequestRecorder.Entry
    ) async throws -> Bool {
        var length = 0
        for try await buffer in request.body {
            length += buffer.readableBytes
            entry.setBodyLength(length)
            let (pace, drop) =
                resumableUploads.update(id) { resource -> (Int, Bool) in
                    guard resource.generation == generation else { return (0, true) }
                    var bytes = Array(buffer.readableBytesView)
                    var drop = false
                    if let limit = resource.dropAfter, resource.bytes.count + bytes.count >= limit {
                        bytes = Array(bytes.prefix(max(0, limit - resource.bytes.count)))
                        resource.dropAfter = nil
                        drop = true
                    }
                    resource.bytes.append(contentsOf: bytes)
                    return (resource.paceMilliseconds, drop)
                } ?? (0, true)
            if drop {
                try? await context.channel.close()
                return false
            }
            if pace > 0 { try await Task.sleep(for: .milliseconds(pace)) }
        }
        return true
    }

    /// Writes `104 Upload Resumption Supported` ahead of the final response, below the HTTP/1
    /// encoder (Hummingbird writes only final responses): raw bytes from the encoder's place in
    /// the pipeline go straight to the socket, before anything the route answers later.
    private func sendInterim(location: String, on channel: any Channel) async throws {
        let head =
            "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 6\r\n"
            + "Location: \(location)\r\n\r\n"
        try await channel.eventLoop.flatSubmit {
            do {
                let context = try channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
                return context.writeAndFlush(NIOAny(ByteBuffer(string: head)))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
    }

    private func offsetFields(_ resource: ResumableUploadLedger.Resource) -> HTTPFields {
        var fields: HTTPFields = [
            offsetName: String(resource.bytes.count), completeName: resource.complete ? "?1" : "?0",
            .cacheControl: "no-store",
        ]
        if let length = resource.length { fields[lengthName] = String(length) }
        if let limit = resource.maximumAppendSize { fields[limitName] = "max-append-size=\(limit)" }
        return fields
    }

    private func report(_ resource: ResumableUploadLedger.Resource) -> JSONValue {
        var hasher = SHA256()
        resource.bytes.withUnsafeBytes { hasher.update($0) }
        return .object([
            "offset": .int(resource.bytes.count), "complete": .bool(resource.complete),
            "deleted": .bool(resource.deleted), "sha256": .string(hasher.finalizeHex()),
        ])
    }

    // swift-format-ignore: NeverForceUnwrap
    private var offsetName: HTTPField.Name { HTTPField.Name("Upload-Offset")! }
    // swift-format-ignore: NeverForceUnwrap
    private var completeName: HTTPField.Name { HTTPField.Name("Upload-Complete")! }
    // swift-format-ignore: NeverForceUnwrap
    private var lengthName: HTTPField.Name { HTTPField.Name("Upload-Length")! }
    // swift-format-ignore: NeverForceUnwrap
    private var limitName: HTTPField.Name { HTTPField.Name("Upload-Limit")! }
}
