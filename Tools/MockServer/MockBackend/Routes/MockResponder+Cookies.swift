import HTTPTypes
import Hummingbird
import NIOCore

// The cookie route that sends a server's `Set-Cookie` fields as a test spells them.
extension MockResponder {
    /// `/cookies/respond?set=LINE…&location=URL&status=CODE`: each `set` query item
    /// (percent-decoded) as one `Set-Cookie` field, attributes and all, not checked; with
    /// `location`, a redirect to it (`CODE`, 302 by default, 300–399) with an empty body,
    /// otherwise 200 with the request's cookies as `{"cookies": {name: value}}`.
    func cookieResponse(_ request: Request, target: RequestTarget) throws -> Response {
        var response: Response
        if let location = target.value("location"), !location.isEmpty {
            let code = try target.integer("status", in: 300...399, default: 302)
            response = MockResponder.redirect(code: code, location: location)
        } else {
            response = try cookies(request)
        }
        for item in target.queryItems where item.name == "set" {
            response.headers.append(HTTPField(name: .setCookie, value: item.value))
        }
        return response
    }
}
