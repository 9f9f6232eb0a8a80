import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// An in-process HTTP/1.1 server on a loopback port, for testing HTTP clients end to end.
///
/// Run one per test with ``withRunning(isolation:_:)``: it binds `127.0.0.1` on a port the
/// kernel picks, waits until it is listening, runs your closure, and shuts down — also when the
/// closure throws. Servers are independent, so parallel tests in one process each get their own.
///
/// ```swift
/// @Test func followsRedirectsToTheEcho() async throws {
///     try await MockServer.withRunning { server in
///         let response = try await transport.data(for: .get("\(server.baseURL)/redirect/3"))
///         #expect(response.status == .ok)
///         #expect(server.receivedRequests().count == 4)
///     }
/// }
/// ```
///
/// Every request is recorded before it is routed; read them with ``receivedRequests()``, or
/// count those of one path with ``requestCount(for:)``.
///
/// ## Routes
///
/// Every route accepts every method (HEAD gets the GET head without a body) unless noted.
/// The business routes of the weather demo's backend (`/sysTime` to `/weather/report`, and
/// `/auth`) answer in the envelope `{"code": Int, "message": String, "data": …}`, code 200
/// and message `ok` for success, HTTP 200 also for their business errors unless noted.
/// Numbers out of range, or malformed, are answered with 400 and a sentence saying why;
/// unknown paths with 404. "Pattern bytes" are ``BytePattern``: byte `i` is `UInt8(i % 251)`.
///
/// | Route | Answer |
/// |---|---|
/// | `/echo` | 200 JSON: `method`, `path`, `target` (path and query as sent), `query` (`{name: [values]}`), `headers` (`{lowercased-name: [values]}`, `host` included), `body` (UTF-8 text or `null`), `bodyBase64`, `bodyLength`, `bodySHA256` (hex). Body fields are `null` past 16 MiB. |
/// | `/status/{code}` | That status (200–599) with `"status {code}\n"`; 204 and 304 have no body and no `Content-Length`. `?retry-after=V` adds `Retry-After: V`: seconds, or an HTTP date percent-encoded (`Wed%2C%2021%20Oct%202015%2007%3A28%3A00%20GMT`). |
/// | `/redirect-to?url=URL&status=CODE` | `CODE` (302 by default, 300–399) with `Location: URL`. |
/// | `/redirect/{n}` | 302 to `http://{Host}/redirect/{n-1}`; `/redirect/1` goes to `/echo`: `n` redirects, then the echo. `/redirect/0` is the echo. |
/// | `/relative-redirect/{n}` | As `/redirect/{n}` with a path-only `Location`. |
/// | `/bytes/{n}` | `n` pattern bytes, `Content-Length`, `application/octet-stream`, streamed (1 GiB is fine), with `ETag: "pattern-{n}"` and `Last-Modified`. One `Range: bytes=` is honoured (206/416) unless `If-Range` names another version (200). Switches: `etag=V` (another version with other bytes), `weak=1`, `no-validator=1`, `no-etag=1`, `ignore-range=1`, `ignore-if-range=1`, `drop-after=K&key=X&drops=D` (the first `D` requests per key close the connection after `K` body bytes; `etag-after-drop=V` for the later ones), `chunk-delay=MS` (per 64 KiB), `signature=S&signature-uses=U` (a signed URL: after `U` requests (1) carrying `S`, `403` `{"error": "signature expired"}`). |
/// | `/stream-bytes/{n}?chunk=K` | `n` pattern bytes, chunked, `K` bytes per chunk (16384 by default). |
/// | `/stall?after=N` | 200, `Content-Length: N+1000`, `N` pattern bytes, then nothing until the client leaves or the server stops. |
/// | `/delay/{ms}` | Waits `ms` (at most 600000), then 200 `ok`. |
/// | `/gzip`, `/deflate` | JSON `{"gzipped": true, …}` / `{"deflated": true, …}` (with `method` and `headers`), compressed, with `Content-Encoding: gzip` / `deflate` (zlib format). |
/// | `/bad-encoding` | 200, `Content-Encoding: gzip`, a body that is not gzip. |
/// | `/large-headers?size=N` | 200 with `X-Large:` `N` × `a` (at most 16 MiB). |
/// | `/headers?name=value…` | Each query item as a response header (also `/response-headers`); framing headers refused. Body: the items as JSON. |
/// | `/cookies/set?name=value…` | `Set-Cookie: name=value; Path=/` per item; body `{"cookies": {…}}`. |
/// | `/cookies` | The request's cookies as `{"cookies": {name: value}}`. |
/// | `/cookies/respond?set=LINE…&location=URL&status=CODE` | Each `set` item (percent-decoded) as a `Set-Cookie` field as it is; with `location`, a redirect there (`CODE`, 302 by default), else 200 with the request's cookies as `/cookies` gives them. |
/// | `/upload` | POST or PUT only (else 405): reads the body streaming, never holding it, and answers `{"bodyLength", "bodySHA256", "contentEncoding", "contentLength", "transferEncoding", "contentType", "method", "decodedLength", "decodedSHA256"}` (headers `null` when absent). A `Content-Encoding: gzip` body is inflated as it arrives: `decoded*` describe the inflated bytes (`null` without gzip); one that does not inflate gets 400. |
/// | `/multipart` | POST or PUT only: parses a `multipart/form-data` body with MultipartKit, streaming, and answers `{"parts": [{"name", "filename", "contentType", "length", "sha256", "value"}]}`: names as sent between the quotes, `value` the text of a part without a file name (UTF-8, at most 64 KiB) or `null`. 415 for another media type, 400 for a body that does not parse or lacks its closing delimiter. |
/// | `/drop?bytes=N` | 200, `Content-Length: 2N`, `N` pattern bytes (1000 by default), then the connection closes. |
/// | `/flaky/{n}?status=CODE&key=K&retry-after=V` | The first `n` requests per key fail with `CODE` (503), with `Retry-After: V` when given, then 200 `{"attempt", "failures"}`. |
/// | `/idempotent?resets=N&scope=S` | POST only (else 405). A server honouring `Idempotency-Key`: per scope `S` (`default`), each attempt's key (or none) is recorded and the request applied, unless one with the same non-empty key was applied in the scope before (no key: applied every time). The first `N` attempts of the scope (0 by default) then get no answer at all: the connection closes before a byte of response (curl: "Empty reply from server"). Later ones get 200 `{"applied": times applied, "attempts", "keys": [key or null per attempt], "sameKey": every attempt had the same non-empty key}`, or 422 with those and `"error": "Idempotency-Key changed between attempts"` when their key differs from the scope's first. |
/// | `/idempotent/stats?scope=S` | The same document for scope `S`, applying nothing. |
/// | `/idempotent/ledger` | Every scope summed up: `{"scopes", "attempts", "applied", "appliedMoreThanOnce": [scopes that applied more than one request], "keysInSeveralScopes": [keys applied in more than one scope]}`. With one scope per logical request, both lists are empty when no request was applied twice. |
/// | `/auth/login?expires-in=S` | POST only. 200 `{"code": 200, "message": "ok", "data": {"token", "expiresIn"}}`: a new token (`t-{generation}-{hex}`) living `S` seconds (3600). |
/// | `/auth/refresh?expires-in=S&fail=CODE&delay=MS` | POST only. Waits `MS` (at most 10000), then, for `Authorization: Bearer T` with a token this server issued (expired or not), a new token as `/auth/login` answers. A missing or unknown token: envelope `{"code": 401, "message": "Unknown token; log in again", "data": null}`. `fail=CODE` (400–599): HTTP `CODE` with a text body instead. |
/// | `/auth/expire` | POST only. Expires every token issued so far; envelope data `{"expired": count}`. |
/// | `/auth/protected`, `/auth/protected/…` | Needs `Authorization: Bearer T`, `T` issued here and unexpired (by lifetime or `/auth/expire`): envelope data `{"token": T, "requests": accepted protected requests so far}`. Otherwise HTTP 200 `{"code": 401, "message": "Token expired", "data": null}`, or with `http=1` HTTP 401, `WWW-Authenticate: Bearer error="invalid_token"`, `{"error": "invalid_token", "message": "Token expired"}`. |
/// | `/auth/stats` | `{"logins", "refreshes", "failedRefreshes", "protected": {"accepted", "rejected"}}`: failed refreshes are those with `fail` or without a known token. |
/// | `/cache?key=K&…` | A resource for HTTP cache tests, counted per key `K` (the whole target by default). `GET`/`HEAD`: 200 (`status=CODE` for another) with the JSON body `{"key", "served", "version", "vary": {name: value}}` and `X-Served: served` (full responses of the key so far), and the headers the query asks for: `max-age=N`, `s-maxage=N`, `no-store=1`, `no-cache=1`, `must-revalidate=1`, `private=1`, `public=1` make `Cache-Control`; `etag=V` gives `ETag: "V"` (`"V-vN"` after N changes); `stale-while-revalidate=N`, `stale-if-error=N` join `Cache-Control`; `last-modified=D`, `expires=D`, `age=N`, `vary=NAMES` are sent as given (dates percent-encoded); `connection=NAME` sends `Connection: NAME` and `NAME: hop-by-hop`. `fail-after=N`: once the key has served `N` full responses, its `GET`s and `HEAD`s get `fail-status` (503). `revalidate-delay=MS` holds conditional requests (at most 10000 ms). An `If-None-Match` naming the current `ETag` (weak comparison, or `*`), or without it an `If-Modified-Since` equal to `last-modified` (before any change), gets `304` with the same headers and no body, and is not counted as served; `revalidate-status=CODE` answers every conditional request with `CODE` instead. Any other method changes the key's version (a new `ETag`) and answers 200 `{"key", "version"}`, with `Content-Location` from `content-location=URL`. |
/// | `/events?count=N&drop-after=K&retry=MS&interval=MS&size=B&end=E&key=K` | A `text/event-stream` of events 1 to `N` (10), `id: I`, `event: tick`, `data: event I`, resuming after a `Last-Event-ID`. `retry` on each connection's first event; `interval` before each event; `drop-after=K` closes the connection after `K` events of a connection; `size=B` adds `B` bytes of data to each. Nothing left: `end` `204` (default) or `close` (an empty stream). `content-type=T` answers `T` instead. `/events/stats?key=K`: `{"connections", "open", "sent", "lastEventIDs"}`. |
/// | `/sysTime` | GET (or HEAD; else 405). Envelope data `{"time": milliseconds since 1970}`. |
/// | `/sysVersion` | POST only, header `platform` (such as `linux`; any case), JSON body `{"appVersion": "X.Y.Z"}`. Envelope data: the releases for the platform newer than `X.Y.Z` (compared number by number), newest first, `[{"version", "notes", "time"}]` (`time` in ms since 1970), from a fixed list 1.0.0, 1.1.0, 1.2.0, 1.2.1 (`android` and `ios` only), 2.0.0, 2.1.0 (every platform). Envelope code 400 for a missing `platform` ("Missing header: platform"), a body that is not a JSON object, a missing or malformed `appVersion`. |
/// | `/weather?city=NAME` | GET (or HEAD). Envelope data `{"location": "NAME, COUNTRY", "three_day_forecast": [{"conditions", "day", "temperature"}]}`, days Monday, Tuesday, Wednesday: Toronto's is the weather fixture (`Toronto, Canada`, 20, 22, 28 °C), every other city of `/weather/cities` gets one generated from its name (the same on every request). Names match without case and surrounding spaces. Code 400 "Missing query item: city", code 404 "Unknown city: NAME" (`data` `null`). Test switches: `code=CODE`, `message=TEXT` (the envelope carries them; without `city` the data is the fixture), `shape=keypath` (`{"data": forecast}`), `plain`, `array` (no envelope; missing or unknown city then HTTP 400/404). |
/// | `/weather/cities?cursor=C&limit=N` | GET (or HEAD). Envelope data `{"items": [{"name", "country"}], "cursor": next or null}`: 60 cities in a fixed order (Chinese ones named in Chinese, country `中国`; São Paulo, Zürich, Montréal…), `N` a page (10 by default, 1–100). Cursors are opaque; code 400 "Invalid cursor: C" for one this server did not make. |
/// | `/weather/radar?city=NAME&size=N` | GET (or HEAD). The city's radar image: `N` bytes (262144 by default, at most 256 MiB) that repeat 4093 bytes seeded by the city, `application/octet-stream`, streamed with `Content-Length`, `ETag: "radar-{hex}-{N}"`, `Last-Modified`. One `Range: bytes=` is honoured (206/416) unless `If-Range` names another version (200). `chunk-delay=MS` (per 64 KiB; the route's pace by default, see `/faults/pace`). Not an envelope route: unknown city HTTP 404, missing city HTTP 400, both with the envelope as body (`{"code": 404, "message": "Unknown city: NAME", "data": null}`). |
/// | `/weather/report` | POST only. `Authorization: Bearer T` (a token of `/auth/login`, unexpired) and a `multipart/form-data` body with parts `city` (text), `note` (text, optional), `photo` (file, hashed as it arrives). Envelope data `{"id": "report-N", "city", "note" (or null), "bytes", "sha256"}` (the photo's length and hex SHA-256). Code 401 "Log in first" (no token) or "Token expired"; code 400 "Missing part: city" / "Missing part: photo", or a body that does not parse; code 404 "Unknown city: NAME". |
/// | `/proto/forecast?city=NAME` | GET (or HEAD). The forecast of `/weather` as the Protocol Buffers message `parley.weather.Forecast` (Tests/ParleyProtobufTests/Protos), `application/x-protobuf`; missing city HTTP 400, unknown HTTP 404 (text). `as=truncated` (without the last byte), `json` (the forecast as JSON), `empty` (no body, no `Content-Type`), `empty-message` (no body, `application/x-protobuf`). |
/// | `/proto/envelope?city=NAME` | GET (or HEAD). The envelope message `parley.Envelope` (Packages/ParleyProtobuf/Protos): code 200, `ok`, the forecast packed in a `google.protobuf.Any`; code 400 "Missing query item: city", code 404 "Unknown city: NAME" without data, HTTP 200. `code=CODE`, `message=TEXT` as for `/weather`. |
/// | `/proto/echo` | POST only. The body back with the request's `Content-Type`, which must be `application/x-protobuf`, `application/protobuf` or `application/vnd.google.protobuf` (415 otherwise). |
/// | feature routes | Every `Resources/Features/*.json` of the bundle (and of each folder of ``Options/featureRoutes``) adds canned routes (``FeatureRoutes``): `{"routes": [{"method", "path", "query", "status", "code", "message", "data"}]}`, answered as the envelope `{"code": code (200), "message": message ("ok"), "data": data}` with HTTP `status` (200). A path segment `{name}` matches any segment, and fills `{name}` in `message` and in `data`'s strings; `query` items must be in the request; the most specific route answers (most literal segments, then most query items). Another method gets 405 with `Allow`; a query no route accepts, HTTP 404 with the envelope's code 404. The routes above win over canned ones. `make feature NAME=X` writes one. |
/// | `/faults` | GET. The fault injector (``FaultInjector``): `{"chaos": {"rate", "seed", "faults": ["drop", "503:1"]}, "delays": {path: ms}, "paces": {path: ms}, "scripts": {path: ["drop", "503:1", "ok"]}, "counters": {path: {"requests", "drops", "unavailable", "unavailableWithoutRetryAfter", "resets", "stalls", "delayed"}}, "paths": [business route paths]}`. |
/// | `/faults/script?path=P&outcomes=O,…` | POST only. Replaces route `P`'s scripted outcomes (`ok`, `drop`, `503` with `Retry-After: 1`, `503:SECONDS`, `503:none` without `Retry-After`, `reset` mid-body, `stall` mid-body; empty removes them); answers the `/faults` document. `P` must be a business route (400 otherwise). |
/// | `/faults/delay?path=P&ms=N` | POST only. Route `P` waits `N` ms (0–600000; 0 removes) before each answer. |
/// | `/faults/pace?path=P&ms=N` | POST only. Route `P` waits `N` ms (0–10000; 0 removes) after each 64 KiB of its body: `/weather/radar` without `chunk-delay`, so a download's progress is visible. |
/// | `/faults/chaos?rate=R&seed=S&faults=O,…` | POST only. Chaos rate `R` (0–1); with `seed`, the generator restarts from `S`; with `faults`, chaos picks uniformly among those outcomes (named as for `/faults/script`; `default` for a drop or a 503). |
/// | `/faults/reset` | POST only. No scripts, no delays, no paces, rate 0, counters 0, the generator back at the start seed. |
///
/// ### Faults
///
/// The business routes — `/sysTime`, `/sysVersion`, `/weather`, `/weather/cities`,
/// `/weather/radar`, `/weather/report`, `/auth/login` and `/auth/refresh` — consult
/// ``faults`` before answering: each waits its route's delay, then takes its route's next
/// scripted outcome or, with probability ``FaultInjector/chaosRate``, a fault drawn from a
/// seeded SplitMix64 among ``FaultInjector/chaosFaults``: by default a connection closed
/// without an answer (curl: "Empty reply from server"), or HTTP 503 with `Retry-After: 1` and
/// `{"code": 503, "message": "Service unavailable; try again", "data": null}`; a 503 without
/// `Retry-After`, a reset mid-body and a stall mid-body can be added. Set them in process through ``faults``, at start with
/// ``Options`` (``withRunning(isolation:options:_:)``,
/// ``run(host:port:logger:options:onListening:)``), or from another process through the
/// `/faults` routes. The other routes are never faulted.
///
/// Query values are percent-decoded; `+` stays `+`. The server sends no `100 Continue`, so
/// a client that sends `Expect: 100-continue` waits out its own expect timeout (curl: 1 s).
///
/// libcurl sends a request again by itself, once and on a new connection, when a connection it
/// reused closes without a byte of answer. A client that reaches `/idempotent` over a reused
/// connection may therefore never see a drop; the route's `attempts` count what arrived.
///
/// For peers that misbehave below HTTP — a reset, an empty reply, a connection held open —
/// use ``ScriptedSocketServer``.
public struct MockServer: Sendable {
    /// The address the server listens on, `127.0.0.1` unless given to ``run(host:port:logger:onListening:)``.
    public let host: String
    /// The port the server is listening on, as bound (never 0).
    public let port: Int
    /// The faults of the business routes: scripted outcomes, delays and chaos, and their
    /// counters. Changes apply to the next request.
    public let faults: FaultInjector
    private let recorder: RequestRecorder

    /// `http://HOST:PORT`, without a trailing slash: append a path such as `/echo`.
    public var baseURL: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// The absolute URL of `path` on this server: `url("/echo")` is `baseURL + "/echo"`.
    ///
    /// - Parameter path: A path starting with `/`, with a query if wanted.
    /// - Returns: The URL as a string.
    public func url(_ path: String) -> String {
        baseURL + path
    }

    /// Every request received so far, oldest first.
    ///
    /// A request appears as soon as its head has arrived, before its route runs; its
    /// ``RecordedRequest/bodyLength`` is final once its response has started.
    ///
    /// - Returns: A snapshot; later requests do not change it.
    public func receivedRequests() -> [RecordedRequest] {
        recorder.snapshot()
    }

    /// How many requests for `path` have arrived so far, whatever their query or method.
    ///
    /// - Parameter path: A path without a query, compared exactly: `/weather` counts
    ///   `/weather?city=Paris` but not `/weather/cities`.
    /// - Returns: The count, from ``receivedRequests()``.
    public func requestCount(for path: String) -> Int {
        recorder.snapshot().count { request in
            request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == Substring(path)
        }
    }

    private init(host: String, port: Int, recorder: RequestRecorder, faults: FaultInjector) {
        self.host = host
        self.port = port
        self.recorder = recorder
        self.faults = faults
    }

    // MARK: - Running

    /// Starts a server on `127.0.0.1` and an ephemeral port, runs `body`, then stops the server.
    ///
    /// `body` starts only once the server is listening, so its first request cannot be refused.
    /// When `body` returns or throws, the server stops accepting, cancels requests in flight
    /// (a `/stall` or `/delay` does not hold up shutdown) and closes every connection before
    /// this method returns.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: The test, given the running server.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``MockServerError/Code/serverDidNotStart`` (or the
    ///   bind error) when the server could not start.
    public static func withRunning<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (MockServer) async throws -> T
    ) async throws -> T {
        try await withRunning(isolation: isolation, options: Options(), body)
    }

    /// Starts a server with `options` on `127.0.0.1` and an ephemeral port, runs `body`, then
    /// stops the server: ``withRunning(isolation:_:)`` with faults from the start.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - options: The chaos and delays the business routes start with.
    ///   - body: The test, given the running server.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``MockServerError/Code/serverDidNotStart`` (or the
    ///   bind error) when the server could not start.
    public static func withRunning<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        options: Options,
        _ body: (MockServer) async throws -> T
    ) async throws -> T {
        let (started, startedContinuation) = AsyncStream.makeStream(of: MockServer.self)
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask {
                defer { startedContinuation.finish() }
                try await serve(host: "127.0.0.1", port: 0, logger: nil, options: options) { server in
                    startedContinuation.yield(server)
                }
            }
            guard let server = await started.first(where: { _ in true }) else {
                // The server stopped before listening: surface its error.
                try await group.next()
                throw MockServerError(.serverDidNotStart, "the mock server stopped before it was listening")
            }
            let result = try await body(server)
            group.cancelAll()
            return result
        }
    }

    /// Runs a server until the calling task is cancelled: the entry point for a standalone server.
    ///
    /// `parley-mock-server` calls this with a fixed port and cancels the task on SIGINT or
    /// SIGTERM. On cancellation the server stops accepting, cancels requests in flight and closes
    /// every connection, then this method returns.
    ///
    /// - Parameters:
    ///   - host: The address to bind; `127.0.0.1` by default.
    ///   - port: The port to bind; 0 (the default) lets the kernel pick one.
    ///   - logger: Where Hummingbird logs; `nil` (the default) discards its logs.
    ///   - onListening: Called once, when the server is listening, with the bound port. Return
    ///     promptly: connections are not accepted until it returns.
    /// - Throws: The bind error when the address cannot be bound, such as a port in use.
    public static func run(
        host: String = "127.0.0.1",
        port: Int = 0,
        logger: Logger? = nil,
        onListening: @escaping @Sendable (MockServer) async -> Void
    ) async throws {
        try await serve(host: host, port: port, logger: logger, options: Options(), onListening: onListening)
    }

    /// Runs a server with `options` until the calling task is cancelled:
    /// ``run(host:port:logger:onListening:)`` with faults from the start.
    ///
    /// - Parameters:
    ///   - host: The address to bind; `127.0.0.1` by default.
    ///   - port: The port to bind; 0 (the default) lets the kernel pick one.
    ///   - logger: Where Hummingbird logs; `nil` (the default) discards its logs.
    ///   - options: The chaos and delays the business routes start with.
    ///   - onListening: Called once, when the server is listening, with the bound port. Return
    ///     promptly: connections are not accepted until it returns.
    /// - Throws: The bind error when the address cannot be bound, such as a port in use.
    public static func run(
        host: String = "127.0.0.1",
        port: Int = 0,
        logger: Logger? = nil,
        options: Options,
        onListening: @escaping @Sendable (MockServer) async -> Void
    ) async throws {
        try await serve(host: host, port: port, logger: logger, options: options, onListening: onListening)
    }

    /// Runs a server with `options` until SIGTERM or SIGINT, then shuts it down gracefully: it
    /// stops accepting connections, lets the requests in flight finish (for up to
    /// `gracePeriod`, after which it closes the connections left), and returns. The entry point
    /// of `parley-mock-server`.
    ///
    /// The two signals are handled through a swift-service-lifecycle `ServiceGroup` for as
    /// long as this runs: they no longer end the process by themselves.
    ///
    /// - Parameters:
    ///   - host: The address to bind; `127.0.0.1` by default.
    ///   - port: The port to bind; 0 (the default) lets the kernel pick one.
    ///   - logger: Where Hummingbird logs; `nil` (the default) discards its logs.
    ///   - options: The chaos and delays the business routes start with.
    ///   - gracePeriod: How long the requests in flight at the signal may take; 30 seconds by
    ///     default.
    ///   - onListening: Called once, when the server is listening, with the bound port. Return
    ///     promptly: connections are not accepted until it returns.
    /// - Throws: The bind error when the address cannot be bound, such as a port in use.
    public static func runUntilTerminated(
        host: String = "127.0.0.1",
        port: Int = 0,
        logger: Logger? = nil,
        options: Options,
        gracePeriod: Duration = .seconds(30),
        onListening: @escaping @Sendable (MockServer) async -> Void
    ) async throws {
        let logger = logger ?? Logger(label: "parley.mock-server", factory: { _ in SwiftLogNoOpLogHandler() })
        let application = makeApplication(
            host: host, port: port, logger: logger, options: options, onListening: onListening)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: application)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Builds the Hummingbird application and runs it until cancelled.
    private static func serve(
        host: String,
        port: Int,
        logger: Logger?,
        options: Options,
        onListening: @escaping @Sendable (MockServer) async -> Void
    ) async throws {
        let application = makeApplication(
            host: host, port: port,
            logger: logger ?? Logger(label: "parley.mock-server", factory: { _ in SwiftLogNoOpLogHandler() }),
            options: options, onListening: onListening)
        // `Application.run()` runs its own ServiceGroup without signal handlers; cancelling
        // this task cancels the group, which closes the listener and every connection.
        try await application.run()
    }

    /// The Hummingbird application of the routes, on `host` and `port`.
    private static func makeApplication(
        host: String,
        port: Int,
        logger: Logger,
        options: Options,
        onListening: @escaping @Sendable (MockServer) async -> Void
    ) -> some ApplicationProtocol & Service {
        let recorder = RequestRecorder()
        let faults = FaultInjector(
            chaosRate: options.chaosRate, chaosSeed: options.chaosSeed, chaosFaults: options.chaosFaults,
            delays: options.delays)
        let application = Application(
            responder: MockResponder(
                recorder: recorder, faults: faults,
                features: options.featureRoutes.isEmpty
                    ? .bundled
                    : FeatureRoutes(folders: [FeatureRoutes.bundledFolder].compactMap { $0 } + options.featureRoutes)),
            // `.http1()`, with connections accepted as the server stops closed rather than
            // dropped: see `ClosingChildChannel`.
            server: HTTPServerBuilder { responder in
                ClosingChildChannel(base: HTTP1Channel(responder: responder))
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                let boundPort = channel.localAddress?.port ?? port
                await onListening(MockServer(host: host, port: boundPort, recorder: recorder, faults: faults))
            },
            logger: logger
        )
        return application
    }
}
