import Foundation
import HTTPTypes
import Hummingbird

// The weather report of the demo's backend: a multipart upload for logged-in users.
extension MockResponder {
    /// `POST /weather/report` with `Authorization: Bearer T` and a `multipart/form-data` body
    /// of the parts `city` (text), `note` (text, optional) and `photo` (a file): accepts the
    /// report and describes the photo it received.
    ///
    /// ```json
    /// {"code": 200, "message": "ok",
    ///  "data": {"id": "report-1", "city": "Toronto", "note": "Windy" or null,
    ///           "bytes": 48213, "sha256": "…"}}
    /// ```
    ///
    /// `city` is the catalog's spelling of the city; `bytes` and `sha256` are the photo's
    /// length and SHA-256 (lowercase hex). The photo is hashed as it arrives and not kept. `T`
    /// must be a token of `/auth/login` or `/auth/refresh` that has not expired, by its
    /// lifetime or `/auth/expire`; the check does not count in `/auth/stats`. Errors are
    /// envelope codes with HTTP 200 and `"data": null`:
    ///
    /// - 401 "Log in first" without a bearer token, "Token expired" for an expired or unknown one;
    /// - 400 for a body that is not `multipart/form-data` or does not parse, or that lacks the
    ///   `city` or `photo` part ("Missing part: city"), or whose `city` or `note` is not UTF-8
    ///   text of at most 64 KiB;
    /// - 404 "Unknown city: NAME".
    ///
    /// The body is read to its end in every case. Other methods than POST get HTTP 405.
    func weatherReport(_ request: Request, entry: RequestRecorder.Entry) async throws -> Response {
        if request.method != .post {
            try await drainBody(of: request, into: entry)
            try Self.requirePost(request, "/weather/report")
        }
        guard let token = Self.bearerToken(of: request) else {
            try await drainBody(of: request, into: entry)
            return try .envelope(code: 401, message: "Log in first", data: .null)
        }
        guard tokens.isValid(token) else {
            try await drainBody(of: request, into: entry)
            return try .envelope(code: 401, message: "Token expired", data: .null)
        }
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = contentType.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard mediaType == "multipart/form-data",
            let boundary = MultipartHeader.parameter("boundary", in: contentType), !boundary.isEmpty
        else {
            try await drainBody(of: request, into: entry)
            return try .envelope(
                code: 400, message: "The body must be multipart/form-data with a boundary, not \"\(contentType)\"",
                data: .null)
        }
        let parts: [MultipartCollector.Part]
        do {
            parts = try await parseMultipart(request, boundary: boundary, entry: entry)
        } catch let error as RouteError {
            return try .envelope(code: 400, message: error.message, data: .null)
        }

        guard let cityPart = parts.first(where: { $0.name == "city" }) else {
            return try .envelope(code: 400, message: "Missing part: city", data: .null)
        }
        guard let photo = parts.first(where: { $0.name == "photo" }) else {
            return try .envelope(code: 400, message: "Missing part: photo", data: .null)
        }
        guard let name = cityPart.text?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
            return try .envelope(code: 400, message: "The city part must be a city's name", data: .null)
        }
        let notePart = parts.first { $0.name == "note" }
        if let notePart, notePart.text == nil {
            return try .envelope(code: 400, message: "The note part must be UTF-8 text of at most 64 KiB", data: .null)
        }
        guard let city = CityCatalog.city(named: name) else {
            return try .envelope(code: 404, message: "Unknown city: \(name)", data: .null)
        }
        let number = reports.nextAttempt(for: "reports")
        return try .envelope(
            data: .object([
                "id": .string("report-\(number)"),
                "city": .string(city.name),
                "note": .string(orNull: notePart?.text),
                "bytes": .int(photo.length),
                "sha256": .string(photo.sha256),
            ]))
    }
}
