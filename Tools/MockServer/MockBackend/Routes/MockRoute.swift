/// The routes of the ``MockServer``, parsed from a request path.
///
/// Each case documents what the route does; ``MockServer`` has the full table.
enum MockRoute: Sendable {
    /// `/echo`: the request as JSON (method, target, query, headers, body and its digest).
    case echo
    /// `/status/{code}`: that status with a short text body (none for 204 and 304).
    case status(Int)
    /// `/redirect-to?url=URL&status=CODE`: a redirect to `URL` (302 by default).
    case redirectTo
    /// `/redirect/{n}` (absolute `Location`) and `/relative-redirect/{n}` (relative): `n`
    /// redirects, the last to `/echo`. `n` is at least 1; `/redirect/0` is ``echo``.
    case redirect(remaining: Int, relative: Bool)
    /// `/bytes/{n}`: `n` pattern bytes with `Content-Length`, validators, a single `Range` and
    /// `If-Range`, and switches for resume tests (see `MockResponder.bytes`).
    case bytes(Int)
    /// `/stream-bytes/{n}?chunk=K`: `n` pattern bytes, chunked, `K` bytes per chunk.
    case streamBytes(Int)
    /// `/stall?after=N`: promises `N + 1000` bytes, sends `N`, then waits for the client to leave.
    case stall
    /// `/delay/{ms}`: waits, then answers `ok`.
    case delay(milliseconds: Int)
    /// `/gzip`: JSON compressed with `Content-Encoding: gzip`.
    case gzip
    /// `/deflate`: JSON compressed with `Content-Encoding: deflate` (the zlib format).
    case deflate
    /// `/bad-encoding`: claims `Content-Encoding: gzip` but sends plain text.
    case badEncoding
    /// `/large-headers?size=N`: one `X-Large` header of `N` bytes.
    case largeHeaders
    /// `/headers?name=value…` (also `/response-headers`): each query item as a response header.
    case responseHeaders
    /// `/cookies`: the cookies the request carried, as JSON.
    case cookies
    /// `/cookies/set?name=value…`: a `Set-Cookie` per query item.
    case setCookies
    /// `/cookies/respond?set=LINE…&location=URL`: raw `Set-Cookie` fields, and a redirect or the cookies.
    case cookieResponse
    /// `/upload` (POST or PUT): streams the body and reports its length and digest.
    case upload
    /// `/multipart` (POST or PUT): parses a `multipart/form-data` body and describes each part.
    case multipart
    /// `/drop?bytes=N`: promises `2N` bytes, sends `N`, then closes the connection.
    case drop
    /// `/flaky/{n}?status=CODE&key=K`: fails with `CODE` (503) `n` times per key, then succeeds.
    case flaky(failures: Int)
    /// `GET /weather?city=NAME`: the city's three-day forecast, in the envelope; `shape`,
    /// `code` and `message` switch the answer for tests.
    case weather
    /// `GET /weather/cities?cursor=C&limit=N`: the known cities, a page at a time.
    case weatherCities
    /// `GET /weather/radar?city=NAME&size=N`: the city's radar image, deterministic bytes with
    /// validators and ranges.
    case weatherRadar
    /// `POST /weather/report`: a multipart weather report with a photo, for logged-in users.
    case weatherReport
    /// `GET /proto/forecast?city=NAME`: the city's forecast as a Protocol Buffers message.
    case protobufForecast
    /// `GET /proto/envelope?city=NAME`: the forecast in the Protocol Buffers envelope message.
    case protobufEnvelope
    /// `POST /proto/echo`: a posted Protocol Buffers message, sent back as it came.
    case protobufEcho
    /// `GET /sysTime`: the server's clock.
    case sysTime
    /// `POST /sysVersion`: the releases newer than the client's version, for its platform.
    case sysVersion
    /// `/faults…`: the state and the controls of the ``FaultInjector``.
    case faults(FaultsEndpoint)
    /// `POST /idempotent?resets=N&scope=S`: applies a request once per `Idempotency-Key`, and
    /// closes the connection without an answer for the first `N` attempts of the scope.
    case idempotent
    /// `/idempotent/stats?scope=S`: what `/idempotent` has seen in the scope.
    case idempotentStats
    /// `/idempotent/ledger`: what `/idempotent` has seen in every scope, summed up.
    case idempotentLedger
    /// `/auth/…`: a backend that issues, refreshes, expires and checks bearer tokens.
    case auth(AuthEndpoint)
    /// `/cache?key=K&…`: caching headers as asked, `304` to matching conditional requests.
    case cache
    /// `/events?count=N&drop-after=K&retry=MS…`: a server-sent event stream (`MockResponder.events`).
    case events
    /// `/events/stats?key=K`: what `/events` sent for a key.
    case eventStats
    /// `/resumable` and `/resumable/{id}`: resumable uploads (`MockResponder+ResumableUploads.swift`).
    case resumable(id: Int?)
    /// A feature module's canned routes (``FeatureRoutes``) whose path matches the request's.
    case feature(FeatureRoutes.Matches)

    /// The endpoints under `/auth`.
    enum AuthEndpoint: Sendable {
        /// `POST /auth/login`: a new token.
        case login
        /// `POST /auth/refresh`: a new token for one this server issued.
        case refresh
        /// `POST /auth/expire`: expires every token issued so far.
        case expire
        /// `/auth/protected` and every path below it: requires a valid bearer token.
        case protected
        /// `/auth/stats`: the counters of the token routes.
        case stats
    }

    /// The endpoints under `/faults`.
    enum FaultsEndpoint: Sendable {
        /// `GET /faults`: the injector's settings and counters.
        case state
        /// `POST /faults/script?path=P&outcomes=O,O…`: scripts the next outcomes of a route.
        case script
        /// `POST /faults/delay?path=P&ms=N`: a delay before each answer of a route.
        case delay
        /// `POST /faults/pace?path=P&ms=N`: a wait after each 64 KiB of a route's bodies.
        case pace
        /// `POST /faults/chaos?rate=R&seed=S`: the chaos rate, and a new seed.
        case chaos
        /// `POST /faults/reset`: no faults, counters at 0.
        case reset
    }

    /// Whether the route reads the request body itself; the responder drains it for the others.
    var readsBody: Bool {
        switch self {
        case .echo, .upload, .multipart, .sysVersion, .weatherReport, .resumable, .protobufEcho: true
        default: false
        }
    }

    /// The path the ``FaultInjector`` knows a business route by, such as `/weather/radar`;
    /// `nil` for the test routes, which are never faulted.
    var faultPath: String? {
        switch self {
        case .sysTime: "/sysTime"
        case .sysVersion: "/sysVersion"
        case .weather: "/weather"
        case .weatherCities: "/weather/cities"
        case .weatherRadar: "/weather/radar"
        case .weatherReport: "/weather/report"
        case .auth(.login): "/auth/login"
        case .auth(.refresh): "/auth/refresh"
        default: nil
        }
    }

    /// Matches `segments` (the path split on `/`) to a route.
    ///
    /// - Returns: The route, or `nil` when no route has that path.
    /// - Throws: ``RouteError`` (400) when the path matches but a number in it is invalid.
    init?(segments: [Substring]) throws {
        let maximumLength = 1 << 40  // 1 TiB: large enough for any test, small enough not to overflow.
        if let route = MockResponder.resumableRoute(segments) {
            self = route
            return
        }
        if segments.count >= 2, segments[0] == "auth", segments[1] == "protected" {
            self = .auth(.protected)
            return
        }
        switch segments.count {
        case 1:
            switch segments[0] {
            case "echo": self = .echo
            case "redirect-to": self = .redirectTo
            case "stall": self = .stall
            case "gzip": self = .gzip
            case "deflate": self = .deflate
            case "bad-encoding": self = .badEncoding
            case "large-headers": self = .largeHeaders
            case "headers", "response-headers": self = .responseHeaders
            case "cookies": self = .cookies
            case "upload": self = .upload
            case "multipart": self = .multipart
            case "drop": self = .drop
            case "weather": self = .weather
            case "idempotent": self = .idempotent
            case "cache": self = .cache
            case "events": self = .events
            case "sysTime": self = .sysTime
            case "sysVersion": self = .sysVersion
            case "faults": self = .faults(.state)
            default: return nil
            }
        case 2:
            let argument = segments[1]
            switch segments[0] {
            case "status":
                self = .status(try RequestTarget.integer(argument, named: "status code", in: 200...599))
            case "redirect", "relative-redirect":
                let count = try RequestTarget.integer(argument, named: "redirect count", in: 0...1000)
                self = count == 0 ? .echo : .redirect(remaining: count, relative: segments[0] == "relative-redirect")
            case "bytes":
                self = .bytes(try RequestTarget.integer(argument, named: "byte count", in: 0...maximumLength))
            case "stream-bytes":
                self = .streamBytes(try RequestTarget.integer(argument, named: "byte count", in: 0...maximumLength))
            case "delay":
                self = .delay(milliseconds: try RequestTarget.integer(argument, named: "delay", in: 0...600_000))
            case "cookies" where argument == "set":
                self = .setCookies
            case "cookies" where argument == "respond":
                self = .cookieResponse
            case "flaky":
                self = .flaky(failures: try RequestTarget.integer(argument, named: "failure count", in: 0...1000))
            case "events" where argument == "stats":
                self = .eventStats
            case "idempotent" where argument == "stats":
                self = .idempotentStats
            case "idempotent" where argument == "ledger":
                self = .idempotentLedger
            case "weather":
                switch argument {
                case "cities": self = .weatherCities
                case "radar": self = .weatherRadar
                case "report": self = .weatherReport
                default: return nil
                }
            case "proto":
                switch argument {
                case "forecast": self = .protobufForecast
                case "envelope": self = .protobufEnvelope
                case "echo": self = .protobufEcho
                default: return nil
                }
            case "faults":
                switch argument {
                case "script": self = .faults(.script)
                case "delay": self = .faults(.delay)
                case "pace": self = .faults(.pace)
                case "chaos": self = .faults(.chaos)
                case "reset": self = .faults(.reset)
                default: return nil
                }
            case "auth":
                switch argument {
                case "login": self = .auth(.login)
                case "refresh": self = .auth(.refresh)
                case "expire": self = .auth(.expire)
                case "stats": self = .auth(.stats)
                default: return nil
                }
            default:
                return nil
            }
        default:
            return nil
        }
    }
}
