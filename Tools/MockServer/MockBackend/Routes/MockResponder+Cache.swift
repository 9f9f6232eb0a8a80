import Foundation
import HTTPTypes
import Hummingbird

// The route for HTTP cache tests.
extension MockResponder {
    /// `/cache?key=K&…`: a resource with the caching headers the query asks for, that answers
    /// conditional requests with `304` and counts what it serves.
    ///
    /// - `GET` (and `HEAD`): 200 (or `status=CODE`) with the headers below and the JSON body
    ///   `{"key", "served", "version", "vary": {name: value}}`, where `served` counts the full
    ///   responses of the key (also in `X-Served`). A request whose `If-None-Match` names the
    ///   current `ETag` (weak comparison, or `*`), or, without `If-None-Match`, whose
    ///   `If-Modified-Since` equals `last-modified` exactly (nginx's rule), gets `304` with the
    ///   same headers and no body; `revalidate-status=CODE` answers such requests with `CODE`
    ///   instead (a failing origin).
    /// - Any other method: the key's version moves on (a new `ETag`), and 200
    ///   `{"key", "version"}` with `Content-Location: content-location` when given.
    ///
    /// Headers: `max-age`, `s-maxage`, `stale-while-revalidate`, `stale-if-error`, `no-store`,
    /// `no-cache`, `must-revalidate`, `private`, `public` build `Cache-Control`; `etag=V` gives
    /// `ETag: "V"` (`"V-vN"` once version N > 0); `last-modified`, `expires`, `age`, `vary` are
    /// sent as given (`expires` and `last-modified` percent-encoded HTTP dates);
    /// `connection=NAME` sends `Connection: NAME` and the field `NAME: hop-by-hop`.
    ///
    /// A failing origin: with `fail-after=N`, once the key has served `N` full responses, every
    /// `GET` and `HEAD` of it gets `fail-status` (503) with a text body. `revalidate-delay=MS`
    /// holds each conditional request `MS` milliseconds (at most 10000) before its answer.
    func cache(_ request: Request, target: RequestTarget) async throws -> Response {
        let key = target.value("key") ?? target.raw
        let method = request.method
        guard method == .get || method == .head else {
            let version = cacheLedger.change(key)
            var fields = HTTPFields()
            if let location = target.value("content-location") {
                fields[.contentLocation] = location
            }
            return try .json(.object(["key": .string(key), "version": .int(version)]), headerFields: fields)
        }
        let version = cacheLedger.version(of: key)
        var fields = HTTPFields()
        var directives: [String] = []
        for name in ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error"] {
            if let value = target.value(name) { directives.append("\(name)=\(value)") }
        }
        for name in ["no-store", "no-cache", "must-revalidate", "private", "public"] where target.value(name) == "1" {
            directives.append(name)
        }
        if !directives.isEmpty { fields[.cacheControl] = directives.joined(separator: ", ") }
        let entityTag = target.value("etag").map { version == 0 ? "\"\($0)\"" : "\"\($0)-v\(version)\"" }
        if let entityTag { fields[.eTag] = entityTag }
        if let lastModified = target.value("last-modified") { fields[.lastModified] = lastModified }
        if let expires = target.value("expires") { fields[.expires] = expires }
        if let age = target.value("age") { fields[.age] = age }
        if let vary = target.value("vary") { fields[.vary] = vary }
        if let named = target.value("connection"), let name = HTTPField.Name(named) {
            fields[.connection] = named
            fields[name] = "hop-by-hop"
        }
        if let failAfter = target.value("fail-after") {
            let limit = try RequestTarget.integer(failAfter, named: "fail-after", in: 0...1_000_000)
            if cacheLedger.servedCount(of: key) >= limit {
                let code = try target.integer("fail-status", in: 400...599, default: 503)
                return .text("the origin fails with \(code)\n", status: HTTPResponse.Status(code: code))
            }
        }
        if !request.headers[values: .ifNoneMatch].isEmpty || request.headers[.ifModifiedSince] != nil {
            let delay = try target.integer("revalidate-delay", in: 0...10_000, default: 0)
            if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        }

        if let notModified = try cacheConditionalAnswer(
            request, target: target, entityTag: entityTag, version: version, fields: fields)
        {
            return notModified
        }
        let status = try target.integer("status", in: 200...599, default: 200)
        let served = cacheLedger.serve(key)
        if let name = HTTPField.Name("X-Served") { fields[name] = String(served) }
        var varied: [String: JSONValue] = [:]
        for name in (target.value("vary") ?? "").split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let fieldName = HTTPField.Name(trimmed) else { continue }
            varied[trimmed.lowercased()] = .string(orNull: request.headers[fieldName])
        }
        return try .json(
            .object([
                "key": .string(key), "served": .int(served), "version": .int(version), "vary": .object(varied),
            ]),
            status: HTTPResponse.Status(code: status), headerFields: fields)
    }

    /// The answer to a conditional request that matches: `304` (or `revalidate-status`), or
    /// `nil` when the request is not conditional or does not match.
    private func cacheConditionalAnswer(
        _ request: Request, target: RequestTarget, entityTag: String?, version: Int, fields: HTTPFields
    ) throws -> Response? {
        let ifNoneMatch = request.headers[values: .ifNoneMatch]
        let ifModifiedSince = request.headers[.ifModifiedSince]
        guard !ifNoneMatch.isEmpty || ifModifiedSince != nil else { return nil }
        if let failure = target.value("revalidate-status") {
            let code = try RequestTarget.integer(failure, named: "revalidate-status", in: 200...599)
            return .text("revalidation fails with \(code)\n", status: HTTPResponse.Status(code: code))
        }
        let matches: Bool
        if !ifNoneMatch.isEmpty {
            let opaque = { (tag: Substring) -> String in
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
            }
            let listed = ifNoneMatch.flatMap { $0.split(separator: ",") }.map(opaque)
            matches = entityTag.map { tag in listed.contains("*") || listed.contains(opaque(Substring(tag))) } ?? false
        } else {
            matches = version == 0 && ifModifiedSince == target.value("last-modified")
        }
        guard matches else { return nil }
        var response = Response(status: .notModified, headers: fields)
        response.headers[.contentLength] = nil
        return response
    }
}
