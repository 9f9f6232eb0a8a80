import Foundation
import HTTPTypes

/// A middleware that gives any ``HTTPTransport`` a ``CookieJar``: each request carries the
/// jar's cookies for its URL, and each response's `Set-Cookie` fields are stored for the URL
/// that answered.
///
/// For a transport that has no jar of its own, such as a test double or another library's
/// transport. `CurlTransport` takes the jar itself (its configuration's `cookieJar`), which
/// also sees the hops of the redirects it follows; this middleware sees only the request it
/// passes on and the final response, so a cookie set on a redirect the base transport
/// follows by itself reaches later requests, not the next hop. Do not use both on one
/// transport: each would add the jar's cookies.
///
/// ```swift
/// let jar = CookieJar()
/// let transport = MiddlewareTransport(base, middleware: [CookieMiddleware(jar: jar)])
/// ```
///
/// The request's own `Cookie` field is kept, as the engine keeps it: one field, the caller's
/// value first, then the jar's cookies whose names it does not set.
public struct CookieMiddleware: TransportMiddleware {
    /// The jar read and filled.
    public let jar: CookieJar

    /// A middleware reading and filling `jar`.
    public init(jar: CookieJar) {
        self.jar = jar
    }

    /// Adds the jar's cookies to the request, sends it, and stores the response's cookies.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        let head = request.head
        if let url = CookieURL(scheme: head.scheme, authority: head.authority, path: head.path) {
            let callerValue = head.headerFields[.cookie]
            if let jarValue = jar.fieldValue(for: url, excluding: callerValue) {
                let merged = callerValue.map { $0.isEmpty ? jarValue : "\($0); \(jarValue)" } ?? jarValue
                request.head.headerFields[.cookie] = merged
            }
        }
        let response = try await next(request)
        if let answered = URL(string: response.url), let url = CookieURL(answered) {
            let lines = response.head.headerFields[values: .setCookie]
            if !lines.isEmpty { _ = jar.store(setCookie: lines, from: url) }
        }
        return response
    }
}
