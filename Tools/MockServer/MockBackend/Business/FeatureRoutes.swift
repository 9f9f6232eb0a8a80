import Foundation
import HTTPTypes
import Hummingbird

/// The canned routes of feature modules: every JSON file in the bundle's `Features` folder
/// (`Tools/MockServer/MockBackend/Resources/Features/`), answered in the standard envelope.
///
/// A file lists routes, each a method, a path, and the envelope's parts (`code` 200 and
/// `message` "ok" by default):
///
/// ```json
/// {"routes": [
///   {"method": "GET", "path": "/news", "data": {"items": [{"id": 1}], "next_cursor": "2"}},
///   {"method": "GET", "path": "/news", "query": {"cursor": "2"}, "data": {"items": [{"id": 2}]}},
///   {"method": "GET", "path": "/news/1", "data": {"id": 1, "title": "First"}},
///   {"method": "GET", "path": "/news/{id}", "code": 404, "message": "No news item {id}", "data": null}
/// ]}
/// ```
///
/// - A path segment `{name}` matches any one segment, and `{name}` in the route's `message`
///   and in the strings of its `data` is replaced by what it matched (percent-decoded).
/// - `query` lists items the request must carry with those values (others may be there too).
/// - `status` is the HTTP status of the answer (200 by default), for a server that sends its
///   envelope with an error status.
/// - Of the routes that match a request, the most specific answers: the one with the most
///   literal segments, then the most `query` items; between equals, the last one read (files
///   in name order). A path some route matches, asked with another method, gets 405 with
///   `Allow`; with a query no route of its method accepts, the envelope `code` 404 with HTTP
///   404, naming what the routes ask for.
///
/// `make feature NAME=News` writes `news.json` and `make remove-feature` deletes it again, so
/// a feature team's backend grows and shrinks with its module. The server's own routes win
/// over canned ones.
struct FeatureRoutes: Sendable {
    /// One canned route, as a file spells it.
    struct Route: Decodable, Sendable {
        var method: String
        var path: String
        var query: [String: String]?
        var status: Int?
        var code: Int?
        var message: String?
        var data: JSONValue?
    }

    /// A segment of a route's path.
    enum Segment: Sendable, Equatable {
        /// A segment that must be exactly this text (still percent-encoded, as paths arrive).
        case literal(String)
        /// `{name}`: any one segment, kept under `name`.
        case capture(String)
    }

    /// A route with its path split, in the order it was read.
    struct Entry: Sendable {
        var route: Route
        var segments: [Segment]
        var order: Int

        /// The segments that must be exactly as written.
        var literalCount: Int { segments.count { if case .literal = $0 { true } else { false } } }
    }

    /// The routes whose path matches a request's, with what their `{name}` segments matched.
    struct Matches: Sendable {
        /// The request's path.
        var path: String
        /// The routes, each with its captures.
        var routes: [(entry: Entry, captures: [String: String])]
    }

    /// The routes of one file.
    private struct File: Decodable {
        var routes: [Route]
    }

    private let entries: [Entry]

    /// The routes of every file in the bundle, read once.
    static let bundled = FeatureRoutes(folders: [bundledFolder].compactMap { $0 })

    /// The bundle's `Features` folder.
    static var bundledFolder: URL? { Bundle.module.resourceURL?.appendingPathComponent("Features") }

    /// Reads every `*.json` file of each folder, in order (the files of a folder in name order);
    /// a file that does not parse, or a path that is not `/…`, is skipped with a line on
    /// standard error naming it, so one team's typo does not stop the server.
    init(folders: [URL]) {
        var entries: [Entry] = []
        for folder in folders {
            let files =
                (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
            for file in files.filter({ $0.pathExtension == "json" }).sorted(by: { $0.path < $1.path }) {
                do {
                    for route in try JSONDecoder().decode(File.self, from: Data(contentsOf: file)).routes {
                        guard route.path.hasPrefix("/") else {
                            Self.warn(
                                "skipping the route \(route.path) of \(file.lastPathComponent): a path starts with /")
                            continue
                        }
                        if let status = route.status, !(100...599).contains(status) {
                            Self.warn(
                                "skipping the route \(route.path) of \(file.lastPathComponent): status \(status) is not 100...599"
                            )
                            continue
                        }
                        entries.append(
                            Entry(route: route, segments: Self.segments(of: route.path), order: entries.count))
                    }
                } catch {
                    Self.warn("skipping \(file.lastPathComponent): \(error)")
                }
            }
        }
        self.entries = entries
    }

    /// The routes whose path matches `target`'s path; `nil` when none does.
    func matches(for target: RequestTarget) -> Matches? {
        var routes: [(entry: Entry, captures: [String: String])] = []
        for entry in entries where entry.segments.count == target.segments.count {
            var captures: [String: String] = [:]
            let matched = zip(entry.segments, target.segments).allSatisfy { segment, text in
                switch segment {
                case .literal(let literal): return literal == text
                case .capture(let name):
                    captures[name] = text.removingPercentEncoding ?? String(text)
                    return true
                }
            }
            if matched {
                routes.append((entry, captures))
            }
        }
        return routes.isEmpty ? nil : Matches(path: target.path, routes: routes)
    }

    private static func segments(of path: String) -> [Segment] {
        path.split(separator: "/").map { segment in
            segment.count > 2 && segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .capture(String(segment.dropFirst().dropLast())) : .literal(String(segment))
        }
    }

    private static func warn(_ line: String) {
        FileHandle.standardError.write(Data("mock server: \(line)\n".utf8))
    }
}

extension MockResponder {
    /// Answers a canned feature route: the envelope of the most specific route that matches the
    /// request's method and query, 405 naming the methods the path has, or 404 in the envelope
    /// when no route accepts the query.
    func feature(_ matches: FeatureRoutes.Matches, request: Request, target: RequestTarget) throws -> Response {
        let method = request.method == .head ? "GET" : request.method.rawValue
        let forMethod = matches.routes.filter { $0.entry.route.method.uppercased() == method }
        guard !forMethod.isEmpty else {
            let allowed = Set(matches.routes.map { $0.entry.route.method.uppercased() }).sorted().joined(
                separator: ", ")
            throw RouteError(
                .methodNotAllowed, "\(matches.path) accepts \(allowed), not \(request.method.rawValue)",
                headerFields: [.allow: allowed])
        }
        let accepted = forMethod.filter { candidate in
            (candidate.entry.route.query ?? [:]).allSatisfy { target.value($0.key) == $0.value }
        }
        let best = accepted.max { left, right in
            (left.entry.literalCount, left.entry.route.query?.count ?? 0, left.entry.order)
                < (right.entry.literalCount, right.entry.route.query?.count ?? 0, right.entry.order)
        }
        guard let (entry, captures) = best else {
            let asked = forMethod.compactMap { $0.entry.route.query }
                .map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&") }
            return try .envelope(
                code: 404,
                message: "No canned answer for \(target.raw): the routes of \(matches.path) ask for "
                    + asked.joined(separator: " or "),
                data: .null, status: .notFound)
        }
        let route = entry.route
        return try .envelope(
            code: route.code ?? 200,
            message: Self.filled(route.message ?? "ok", with: captures),
            data: Self.filled(route.data ?? .null, with: captures),
            status: HTTPResponse.Status(code: route.status ?? 200))
    }

    /// `text` with each `{name}` replaced by its capture.
    private static func filled(_ text: String, with captures: [String: String]) -> String {
        captures.reduce(text) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
    }

    /// `value` with each `{name}` in its strings replaced by its capture.
    private static func filled(_ value: JSONValue, with captures: [String: String]) -> JSONValue {
        guard !captures.isEmpty else { return value }
        switch value {
        case .string(let text): return .string(filled(text, with: captures))
        case .array(let items): return .array(items.map { filled($0, with: captures) })
        case .object(let members): return .object(members.mapValues { filled($0, with: captures) })
        default: return value
        }
    }
}
