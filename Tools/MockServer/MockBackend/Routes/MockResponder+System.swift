import Foundation
import HTTPTypes
import Hummingbird

// The system routes of the weather demo's backend: its clock and its release list. They answer
// in the business envelope, HTTP 200 with `{"code", "message", "data"}`, also for errors.
extension MockResponder {
    /// The longest `/sysVersion` body read as JSON: 64 KiB.
    static let sysVersionBodyLimit = 64 << 10

    /// `GET /sysTime`: `{"code": 200, "message": "ok", "data": {"time": MS}}`, `MS` the
    /// server's clock in whole milliseconds since 1970. Other methods than GET and HEAD get 405.
    func sysTime(_ request: Request) throws -> Response {
        try Self.requireGet(request, "/sysTime")
        let milliseconds = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        return try .envelope(data: .object(["time": .int(milliseconds)]))
    }

    /// `POST /sysVersion` with the header `platform: P` and the JSON body
    /// `{"appVersion": "X.Y.Z"}`: the releases for `P` newer than `X.Y.Z`, newest first.
    ///
    /// ```json
    /// {"code": 200, "message": "ok",
    ///  "data": [{"version": "2.1.0", "notes": "…", "time": 1736758800000}, …]}
    /// ```
    ///
    /// Versions compare number by number (`1.10` is newer than `1.9`). The list is fixed:
    /// 1.0.0, 1.1.0, 1.2.0, 1.2.1, 2.0.0 and 2.1.0, every one for every platform but 1.2.1, a
    /// fix for `android` and `ios` only (`P` compared without case). Envelope code 400 (HTTP
    /// 200) with a sentence for a missing `platform` ("Missing header: platform"), a body that
    /// is not a JSON object, a missing or malformed `appVersion`. Other methods get HTTP 405.
    func sysVersion(_ request: Request, entry: RequestRecorder.Entry) async throws -> Response {
        if request.method != .post {
            try await drainBody(of: request, into: entry)
            try Self.requirePost(request, "/sysVersion")
        }
        let body = try await collectBody(of: request, into: entry, limit: Self.sysVersionBodyLimit)
        let header = request.headers.first { $0.name.canonicalName == "platform" }?.value ?? ""
        guard !header.trimmingCharacters(in: .whitespaces).isEmpty else {
            return try .envelope(code: 400, message: "Missing header: platform", data: .null)
        }
        let platform = header.trimmingCharacters(in: .whitespaces).lowercased()
        guard let body else {
            return try .envelope(code: 400, message: "The body is longer than 64 KiB", data: .null)
        }
        let example = #"{"appVersion": "1.2.3"}"#
        guard !body.isEmpty else {
            return try .envelope(code: 400, message: "Missing body: send JSON such as \(example)", data: .null)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return try .envelope(code: 400, message: "The body is not a JSON object such as \(example)", data: .null)
        }
        guard let text = object["appVersion"] as? String else {
            return try .envelope(
                code: 400, message: "Missing appVersion: the body must be JSON such as \(example)", data: .null)
        }
        guard let version = AppVersion(text) else {
            return try .envelope(
                code: 400, message: "appVersion must be a version such as 1.2.3, got '\(text)'", data: .null)
        }
        let releases = ReleaseCatalog.releases(newerThan: version, for: platform)
        return try .envelope(data: .array(releases.map(\.json)))
    }

    /// Throws 405 unless `request` is a GET or a HEAD.
    static func requireGet(_ request: Request, _ path: String) throws {
        guard request.method == .get || request.method == .head else {
            throw RouteError(
                .methodNotAllowed, "\(path) accepts GET, not \(request.method.rawValue)",
                headerFields: [.allow: "GET, HEAD"])
        }
    }
}
