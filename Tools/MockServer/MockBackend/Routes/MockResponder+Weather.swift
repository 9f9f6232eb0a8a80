import Foundation
import Hummingbird

// The weather routes of the demo's backend that answer in the business envelope: the forecast
// of a city and the list of cities. Business errors are envelope codes with HTTP 200.
extension MockResponder {
    /// `GET /weather?city=NAME`: the city's three-day forecast in the envelope,
    ///
    /// ```json
    /// {"code": 200, "message": "ok",
    ///  "data": {"location": "Toronto, Canada",
    ///           "three_day_forecast": [{"conditions": "Partly cloudy", "day": "Monday",
    ///                                   "temperature": 20}, …]}}
    /// ```
    ///
    /// Toronto's is the weather fixture; every other city of ``CityCatalog`` gets one generated
    /// from its name (the same on every request), `location` `NAME, COUNTRY`, days Monday,
    /// Tuesday and Wednesday. `NAME` matches without case and surrounding white space. A
    /// missing `city` gets code 400, "Missing query item: city"; an unknown one code 404,
    /// "Unknown city: NAME", both with `"data": null`. Other methods than GET and HEAD get 405.
    ///
    /// Switches for decoding tests:
    ///
    /// - `code=CODE`, `message=TEXT`: the envelope carries them instead (`CODE` 200 and `TEXT`
    ///   "ok" when only the other is given; a `CODE` that is not a number is sent as a
    ///   string), with the city's forecast as data, the fixture without a `city`, or `null`
    ///   for an unknown one;
    /// - `shape=envelope` (the default), `keypath` (`{"data": forecast}`), `plain` (the forecast
    ///   itself) or `array` (its list of days): without an envelope, a missing city is HTTP 400
    ///   and an unknown one HTTP 404, with a text body.
    func weather(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requireGet(request, "/weather")
        let query = Dictionary(target.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        let name = (query["city"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let city = name.isEmpty ? nil : CityCatalog.city(named: name)
        let forecast = try city.map(CityCatalog.forecast(for:))

        switch query["shape"] ?? "envelope" {
        case "envelope":
            if query["code"] != nil || query["message"] != nil {
                let codeText = query["code"] ?? "200"
                let code: JSONValue = Int(codeText).map(JSONValue.int) ?? .string(codeText)
                let data = name.isEmpty ? Forecast.fixture?.json : forecast?.json
                return try .json(
                    .object(["code": code, "message": .string(query["message"] ?? "ok"), "data": data ?? .null]))
            }
            guard !name.isEmpty else {
                return try .envelope(code: 400, message: "Missing query item: city", data: .null)
            }
            guard let forecast else {
                return try .envelope(code: 404, message: "Unknown city: \(name)", data: .null)
            }
            return try .envelope(data: forecast.json)
        case let shape:
            guard ["keypath", "plain", "array"].contains(shape) else {
                throw RouteError(.badRequest, "unknown shape \"\(shape)\"; use envelope, keypath, plain or array")
            }
            guard !name.isEmpty else { throw RouteError(.badRequest, "Missing query item: city") }
            guard let forecast else { throw RouteError(.notFound, "Unknown city: \(name)") }
            switch shape {
            case "keypath": return try .json(.object(["data": forecast.json]))
            case "plain": return try .json(forecast.json)
            default: return try .json(.array(forecast.threeDayForecast.map(\.json)))
            }
        }
    }

    /// `GET /weather/cities?cursor=C&limit=N`: the cities of ``CityCatalog``, `N` at a time
    /// (10 by default, 1…100), in the catalog's order:
    ///
    /// ```json
    /// {"code": 200, "message": "ok",
    ///  "data": {"items": [{"name": "Toronto", "country": "Canada"}, …], "cursor": "Y2l0aWVzOjEw"}}
    /// ```
    ///
    /// The first page has no `cursor` (or an empty one); each page's `cursor` asks for the
    /// next, and is `null` on the last. Cursors are opaque. One this server did not make gets
    /// code 400, "Invalid cursor: C"; a `limit` out of range, code 400 with a sentence. Other
    /// methods than GET and HEAD get 405.
    func weatherCities(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requireGet(request, "/weather/cities")
        let limit: Int
        do {
            limit = try target.integer("limit", in: 1...100, default: 10)
        } catch let error as RouteError {
            return try .envelope(code: 400, message: error.message, data: .null)
        }
        var start = 0
        if let cursor = target.value("cursor"), !cursor.isEmpty {
            guard let offset = Self.cityOffset(cursor: cursor) else {
                return try .envelope(code: 400, message: "Invalid cursor: \(cursor)", data: .null)
            }
            start = offset
        }
        let end = min(start + limit, CityCatalog.all.count)
        let next: JSONValue = end < CityCatalog.all.count ? .string(Self.cityCursor(offset: end)) : .null
        return try .envelope(
            data: .object(["items": .array(CityCatalog.all[start..<end].map(\.json)), "cursor": next]))
    }

    /// The cursor of the page starting at `offset`: `cities:OFFSET` in unpadded base64url.
    static func cityCursor(offset: Int) -> String {
        Data("cities:\(offset)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The offset a cursor of ``cityCursor(offset:)`` names, or `nil` when `cursor` is not one
    /// (or names no city).
    static func cityOffset(cursor: String) -> Int? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("cities:"), let offset = Int(text.dropFirst("cities:".count)),
            (1..<CityCatalog.all.count).contains(offset), cityCursor(offset: offset) == cursor
        else { return nil }
        return offset
    }
}
