import Foundation
import HTTPTypes
import Hummingbird

// The Protocol Buffers routes: the weather forecast as a message, in the envelope message, and an
// echo of a posted message. The messages are those of Tests/ParleyProtobufTests/Protos (package
// `parley.weather`) and Packages/ParleyProtobuf/Protos (`parley.Envelope`), written by
// ``ProtobufWriter``.
extension MockResponder {
    /// The media type the `/proto` routes answer with.
    static let protobufMediaType = "application/x-protobuf"
    /// The media types `/proto/echo` accepts, compared without parameters and case.
    static let protobufMediaTypes: Set<String> = [
        "application/x-protobuf", "application/protobuf", "application/vnd.google.protobuf",
    ]

    /// `GET /proto/forecast?city=NAME`: the city's forecast as the message
    /// `parley.weather.Forecast` (`location` 1, `days` 2, each `conditions` 1, `day` 2,
    /// `temperature` 3), `Content-Type: application/x-protobuf`; the same forecasts as
    /// `/weather`. A missing city is HTTP 400, an unknown one HTTP 404, with a text body.
    ///
    /// `as=` switches the answer for decoding tests: `message` (the default), `truncated` (the
    /// message without its last byte, which leaves the last day's field short, still
    /// `application/x-protobuf`), `json` (the forecast as
    /// `/weather?shape=plain` answers it, `application/json`), `empty` (HTTP 200, no body and
    /// no `Content-Type`) or `empty-message` (no body, `application/x-protobuf`: the message
    /// with every field at its default).
    func protobufForecast(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requireGet(request, "/proto/forecast")
        let form = target.value("as") ?? "message"
        switch form {
        case "empty":
            return .bytes([])
        case "empty-message":
            return .bytes([], headerFields: [.contentType: Self.protobufMediaType])
        case "message", "truncated", "json":
            break
        default:
            throw RouteError(
                .badRequest, "unknown as \"\(form)\"; use message, truncated, json, empty or empty-message")
        }
        let name = (target.value("city") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw RouteError(.badRequest, "Missing query item: city") }
        guard let city = CityCatalog.city(named: name) else { throw RouteError(.notFound, "Unknown city: \(name)") }
        let forecast = try CityCatalog.forecast(for: city)
        switch form {
        case "json":
            return try .json(forecast.json)
        case "truncated":
            return .bytes(
                Array(Self.protobufMessage(forecast).bytes.dropLast()),
                headerFields: [.contentType: Self.protobufMediaType])
        default:
            return .bytes(Self.protobufMessage(forecast).bytes, headerFields: [.contentType: Self.protobufMediaType])
        }
    }

    /// `GET /proto/envelope?city=NAME`: the envelope message `parley.Envelope` (`code` 1,
    /// `message` 2, `data` 3, a `google.protobuf.Any` of `type_url` 1 and `value` 2) with code
    /// 200, message `ok` and the city's forecast packed as
    /// `type.googleapis.com/parley.weather.Forecast`, HTTP 200 and `application/x-protobuf`.
    ///
    /// A missing city gets code 400 "Missing query item: city", an unknown one code 404
    /// "Unknown city: NAME", both without data and with HTTP 200, as `/weather` answers them.
    /// `code=CODE` and `message=TEXT` make the envelope carry them instead (200 and `ok` when
    /// only the other is given; `CODE` a whole number), with the forecast as data when the city
    /// is known.
    func protobufEnvelope(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requireGet(request, "/proto/envelope")
        let name = (target.value("city") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let forecast = try CityCatalog.city(named: name).map(CityCatalog.forecast(for:))
        var envelope = ProtobufWriter()
        if target.value("code") != nil || target.value("message") != nil {
            let codeText = target.value("code") ?? "200"
            guard let code = Int64(codeText) else {
                throw RouteError(.badRequest, "code must be a whole number, got \"\(codeText)\"")
            }
            envelope.integer(1, code)
            envelope.string(2, target.value("message") ?? "ok")
            if let forecast { envelope.message(3, Self.protobufAny(forecast)) }
        } else if name.isEmpty {
            envelope.integer(1, 400)
            envelope.string(2, "Missing query item: city")
        } else if let forecast {
            envelope.integer(1, 200)
            envelope.string(2, "ok")
            envelope.message(3, Self.protobufAny(forecast))
        } else {
            envelope.integer(1, 404)
            envelope.string(2, "Unknown city: \(name)")
        }
        return .bytes(envelope.bytes, headerFields: [.contentType: Self.protobufMediaType])
    }

    /// `POST /proto/echo`: the body back as it came, with the request's `Content-Type`, which
    /// must be a Protocol Buffers media type (`application/x-protobuf`, `application/protobuf`
    /// or `application/vnd.google.protobuf`, parameters allowed); 415 otherwise, and 405 for
    /// another method than POST. The body is not parsed: any bytes are echoed.
    func protobufEcho(_ request: Request, entry: RequestRecorder.Entry) async throws -> Response {
        if request.method != .post {
            try await drainBody(of: request, into: entry)
            try Self.requirePost(request, "/proto/echo")
        }
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = contentType.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let mediaType, Self.protobufMediaTypes.contains(mediaType) else {
            try await drainBody(of: request, into: entry)
            throw RouteError(
                .unsupportedMediaType,
                "/proto/echo takes a Protocol Buffers message, not \(contentType.isEmpty ? "a body without Content-Type" : contentType)"
            )
        }
        guard let body = try await collectBody(of: request, into: entry, limit: 1 << 20) else {
            throw RouteError(.contentTooLarge, "/proto/echo takes at most 1 MiB")
        }
        return .bytes(body, headerFields: [.contentType: contentType])
    }

    /// `parley.weather.Forecast`.
    static func protobufMessage(_ forecast: Forecast) -> ProtobufWriter {
        var message = ProtobufWriter()
        message.string(1, forecast.location)
        for day in forecast.threeDayForecast {
            var written = ProtobufWriter()
            written.string(1, day.conditions)
            written.string(2, day.day)
            written.integer(3, Int64(day.temperature))
            message.message(2, written)
        }
        return message
    }

    /// `google.protobuf.Any` holding `parley.weather.Forecast`.
    static func protobufAny(_ forecast: Forecast) -> ProtobufWriter {
        var any = ProtobufWriter()
        any.string(1, "type.googleapis.com/parley.weather.Forecast")
        any.bytes(2, protobufMessage(forecast).bytes)
        return any
    }
}
