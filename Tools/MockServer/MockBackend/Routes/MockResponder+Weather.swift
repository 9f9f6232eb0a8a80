import Foundation
import Hummingbird

extension MockResponder {
    /// `/weather?city=NAME&shape=SHAPE&code=CODE&message=TEXT`: the weather fixture (a
    /// three-day forecast), with `location` set to `NAME` when given, in one of four shapes:
    ///
    /// - `envelope` (the default): `{"code": CODE, "message": TEXT, "data": forecast}`,
    ///   `CODE` 200 and `TEXT` "ok" by default; a `CODE` that is not a number is sent as a string;
    /// - `keypath`: `{"data": forecast}`;
    /// - `plain`: the forecast object itself;
    /// - `array`: the bare list of days.
    func weather(target: RequestTarget) throws -> Response {
        guard let url = Bundle.module.url(forResource: "forecast", withExtension: "json"),
            let data = try? Data(contentsOf: url),
            var forecast = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw RouteError(.internalServerError, "the weather fixture is missing from the MockBackend bundle")
        }
        let query = Dictionary(target.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        if let city = query["city"], !city.isEmpty { forecast["location"] = city }
        let body: Any
        switch query["shape"] ?? "envelope" {
        case "envelope":
            let codeText = query["code"] ?? "200"
            let code: Any = Int(codeText) ?? codeText
            body = ["code": code, "message": query["message"] ?? "ok", "data": forecast]
        case "keypath":
            body = ["data": forecast]
        case "plain":
            body = forecast
        case "array":
            body = forecast["three_day_forecast"] ?? []
        case let other:
            throw RouteError(.badRequest, "unknown shape \"\(other)\"; use envelope, keypath, plain or array")
        }
        let json = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return .bytes(Array(json), headerFields: [.contentType: "application/json"])
    }
}
