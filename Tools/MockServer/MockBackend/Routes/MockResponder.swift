import HTTPTypes
import Hummingbird
import NIOCore

/// Records each request, then answers it from the route its path names.
///
/// A hand-written dispatcher rather than Hummingbird's `Router`: every route accepts every
/// method (HEAD and OPTIONS included), and the responder must see each request before routing
/// to record it, including requests for paths that do not exist.
struct MockResponder: HTTPResponder {
    typealias Context = MockRequestContext

    /// Where requests are logged for ``MockServer/receivedRequests()``.
    let recorder: RequestRecorder
    /// How many times each `/flaky` key has been requested.
    let flakyAttempts = AttemptCounter()
    /// How many times each `/bytes?drop-after` key has been requested.
    let dropAttempts = AttemptCounter()
    /// How many times each `/bytes?signature` has been used.
    let signatureUses = AttemptCounter()
    /// What `/idempotent` has seen and applied, per scope.
    let idempotency = IdempotencyLedger()
    /// The tokens the `/auth` routes have issued, and their counters.
    let tokens = TokenIssuer()
    /// What `/cache` has served, and the current version of each of its keys.
    let cacheLedger = CacheLedger()
    /// The faults the business routes get; shared with ``MockServer/faults``.
    let faults: FaultInjector
    /// What `/events` has sent, per key.
    let eventLedger = EventLedger()
    /// Numbers the reports `/weather/report` accepts: `report-1`, `report-2`, …
    let reports = AttemptCounter()
    /// The upload resources of `/resumable`.
    let resumableUploads = ResumableUploadLedger()
    /// The canned routes of feature modules: the bundle's, and the folders of the server's options.
    let features: FeatureRoutes

    init(recorder: RequestRecorder, faults: FaultInjector = FaultInjector(), features: FeatureRoutes = .bundled) {
        self.recorder = recorder
        self.faults = faults
        self.features = features
    }

    func respond(to request: Request, context: MockRequestContext) async throws -> Response {
        let target = RequestTarget(request.head.path ?? "/")
        let entry = recorder.record(
            RecordedRequest(
                method: request.method,
                path: target.raw,
                headerFields: MockResponder.wireHeaderFields(of: request.head)
            )
        )

        var response: Response
        do {
            let route =
                try MockRoute(segments: target.segments)
                ?? features.matches(for: target).map(MockRoute.feature)
            if route?.readsBody != true {
                try await drainBody(of: request, into: entry)
            }
            guard let route else {
                throw RouteError(.notFound, "No route for \(target.path). See the MockServer documentation.")
            }
            if let path = route.faultPath,
                let fault = try await injectFault(
                    path: path, route: route, request: request, context: context, entry: entry)
            {
                response = fault
            } else {
                response = try await answer(route, request: request, target: target, context: context, entry: entry)
            }
        } catch let error as RouteError {
            response = .text(error.message + "\n", status: error.status, headerFields: error.headerFields)
        }

        if request.method == .head {
            // The GET's head without its body. A streamed body has no Content-Length, and the
            // empty body must not add one (`Content-Length: 0` would be a lie).
            let streamed = response.headers[.contentLength] == nil
            response = response.createHeadResponse()
            if streamed {
                response.headers[.contentLength] = nil
            }
        }
        return response
    }

    /// Dispatches to the route's handler.
    private func answer(
        _ route: MockRoute,
        request: Request,
        target: RequestTarget,
        context: MockRequestContext,
        entry: RequestRecorder.Entry
    ) async throws -> Response {
        switch route {
        case .echo: try await echo(request, target: target, entry: entry)
        case .status(let code): status(code, target: target)
        case .redirectTo: try redirectTo(target: target)
        case .redirect(let remaining, let relative):
            redirect(remaining: remaining, relative: relative, request: request, context: context)
        case .bytes(let count): try bytes(count, request: request, target: target, context: context)
        case .streamBytes(let count): try streamBytes(count, target: target)
        case .stall: try stall(target: target, context: context)
        case .delay(let milliseconds): try await delay(milliseconds: milliseconds)
        case .gzip: try compressedJSON(request, format: .gzip)
        case .deflate: try compressedJSON(request, format: .zlib)
        case .badEncoding: badEncoding()
        case .largeHeaders: try largeHeaders(target: target)
        case .responseHeaders: try responseHeaders(target: target)
        case .cookies: try cookies(request)
        case .setCookies: try setCookies(target: target)
        case .cookieResponse: try cookieResponse(request, target: target)
        case .upload: try await upload(request, entry: entry)
        case .multipart: try await multipart(request, entry: entry)
        case .drop: try drop(target: target, context: context)
        case .flaky(let failures): try flaky(failures: failures, target: target)
        case .weather: try weather(request, target: target)
        case .weatherCities: try weatherCities(request, target: target)
        case .weatherRadar: try weatherRadar(request, target: target)
        case .weatherReport: try await weatherReport(request, entry: entry)
        case .protobufForecast: try protobufForecast(request, target: target)
        case .protobufEnvelope: try protobufEnvelope(request, target: target)
        case .protobufEcho: try await protobufEcho(request, entry: entry)
        case .sysTime: try sysTime(request)
        case .sysVersion: try await sysVersion(request, entry: entry)
        case .faults(let endpoint): try faultControl(endpoint, request: request, target: target)
        case .idempotent: try await idempotent(request, target: target, context: context)
        case .idempotentStats: try idempotentStats(target: target)
        case .idempotentLedger: try .json(idempotency.ledger().json)
        case .auth(let endpoint): try await auth(endpoint, request: request, target: target)
        case .cache: try await cache(request, target: target)
        case .feature(let matches): try feature(matches, request: request, target: target)
        case .events: try events(request, target: target, context: context)
        case .eventStats: try eventStats(target: target)
        case .resumable(let id):
            try await resumable(id: id, request: request, target: target, context: context, entry: entry)
        }
    }

    /// Reads and discards the request body, recording its length.
    ///
    /// Routes that ignore the body still read all of it before answering, so the recorded
    /// length is final by the time the client sees a response.
    func drainBody(of request: Request, into entry: RequestRecorder.Entry) async throws {
        var length = 0
        for try await buffer in request.body {
            length += buffer.readableBytes
            entry.setBodyLength(length)
        }
        entry.setBodyLength(length)
    }

    /// Reads the whole request body, recording its length, and keeps it when it is at most
    /// `limit` bytes.
    ///
    /// - Returns: The body, or `nil` when it was longer than `limit` (it is still read to its
    ///   end, so the answer is not a reset).
    func collectBody(of request: Request, into entry: RequestRecorder.Entry, limit: Int) async throws -> [UInt8]? {
        var bytes: [UInt8]? = []
        var length = 0
        for try await buffer in request.body {
            length += buffer.readableBytes
            entry.setBodyLength(length)
            if length <= limit {
                bytes?.append(contentsOf: buffer.readableBytesView)
            } else {
                bytes = nil
            }
        }
        entry.setBodyLength(length)
        return bytes
    }

    /// The request's header fields as they were on the wire: `Host` first, then the rest.
    ///
    /// The HTTP/1 to HTTP-types conversion moves the first `Host` header into the request's
    /// authority; tests asserting on headers want to see it where the client put it.
    static func wireHeaderFields(of head: HTTPRequest) -> HTTPFields {
        guard let authority = head.authority, let host = HTTPField.Name("Host") else {
            return head.headerFields
        }
        var fields = HTTPFields()
        fields.append(HTTPField(name: host, value: authority))
        fields.append(contentsOf: head.headerFields)
        return fields
    }
}
