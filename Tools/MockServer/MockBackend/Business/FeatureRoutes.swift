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
///   {"method": "GET", "path": "/news", "data": [{"id": 1, "title": "First"}]},
///   {"method": "GET", "path": "/news/embargoed", "code": 451, "message": "Not in your region", "data": null}
/// ]}
/// ```
///
/// `make feature NAME=News` writes `news.json` with one route, and `make remove-feature`
/// deletes it again, so a feature team's backend grows and shrinks with its module. The
/// server's own routes win over canned ones.
struct FeatureRoutes: Sendable {
    /// One canned route.
    struct Route: Decodable, Sendable {
        var method: String
        var path: String
        var code: Int?
        var message: String?
        var data: JSONValue?
    }

    /// The routes of one file.
    private struct File: Decodable {
        var routes: [Route]
    }

    /// The routes by path, then by method (upper case).
    private let routes: [String: [String: Route]]

    /// The routes of every file in the bundle, read once.
    static let bundled = FeatureRoutes(folder: Bundle.module.resourceURL?.appendingPathComponent("Features"))

    /// Reads every `*.json` file in `folder`; a file that does not parse is skipped with a
    /// line on standard error naming it, so one team's typo does not stop the server.
    init(folder: URL?) {
        var routes: [String: [String: Route]] = [:]
        let files = folder.flatMap {
            try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)
        }
        for file in (files ?? []).filter({ $0.pathExtension == "json" }).sorted(by: { $0.path < $1.path }) {
            do {
                for route in try JSONDecoder().decode(File.self, from: Data(contentsOf: file)).routes {
                    routes[route.path, default: [:]][route.method.uppercased()] = route
                }
            } catch {
                FileHandle.standardError.write(Data("mock server: skipping \(file.lastPathComponent): \(error)\n".utf8))
            }
        }
        self.routes = routes
    }

    /// The routes at `path`, by method; `nil` when no file names the path.
    func routes(at path: String) -> [String: Route]? {
        routes[path]
    }
}

extension MockResponder {
    /// Answers a canned feature route: its envelope, or 405 naming the methods it has.
    func feature(_ routes: [String: Route], request: Request, path: String) throws -> Response {
        let method = request.method == .head ? "GET" : request.method.rawValue
        guard let route = routes[method] else {
            let allowed = routes.keys.sorted().joined(separator: ", ")
            throw RouteError(
                .methodNotAllowed, "\(path) accepts \(allowed), not \(request.method.rawValue)",
                headerFields: [.allow: allowed])
        }
        return try .envelope(code: route.code ?? 200, message: route.message ?? "ok", data: route.data ?? .null)
    }

    /// A canned route, as ``FeatureRoutes`` describes it.
    typealias Route = FeatureRoutes.Route
}
