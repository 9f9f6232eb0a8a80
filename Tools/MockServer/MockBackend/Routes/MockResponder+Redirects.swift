import HTTPTypes
import Hummingbird
import NIOCore

// The redirect routes.
extension MockResponder {
    /// `/redirect-to?url=URL&status=CODE`: `CODE` (302 by default, 300–399) with `Location: URL`.
    ///
    /// `URL` is percent-decoded once from the query, so encode it when it has its own query.
    func redirectTo(target: RequestTarget) throws -> Response {
        guard let url = target.value("url"), !url.isEmpty else {
            throw RouteError(.badRequest, "/redirect-to needs ?url=")
        }
        let code = try target.integer("status", in: 300...399, default: 302)
        return MockResponder.redirect(code: code, location: url)
    }

    /// `/redirect/{n}` and `/relative-redirect/{n}`: a 302 to the same route with `n - 1`, and
    /// from `n == 1` to `/echo`: `n` redirects in all, then the echo.
    ///
    /// `/redirect` sends an absolute `Location` on the authority the client used (its `Host`
    /// header), so the chain stays on one origin; `/relative-redirect` sends a path only.
    func redirect(remaining: Int, relative: Bool, request: Request, context: MockRequestContext) -> Response {
        let next = remaining <= 1 ? "/echo" : "/\(relative ? "relative-redirect" : "redirect")/\(remaining - 1)"
        if relative {
            return MockResponder.redirect(code: 302, location: next)
        }
        let authority = request.head.authority ?? "127.0.0.1:\(context.channel.localAddress?.port ?? 80)"
        return MockResponder.redirect(code: 302, location: "http://\(authority)\(next)")
    }

    /// A redirect with an empty body.
    static func redirect(code: Int, location: String) -> Response {
        Response(status: HTTPResponse.Status(code: code), headers: [.location: location])
    }
}
