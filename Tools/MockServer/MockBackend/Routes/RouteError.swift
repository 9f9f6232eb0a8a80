import HTTPTypes

/// A request the route cannot serve: answered with ``status`` and ``message`` as plain text.
struct RouteError: Error {
    /// The status of the answer, such as 400 or 405.
    let status: HTTPResponse.Status
    /// A sentence saying what was wrong with the request.
    let message: String
    /// Extra header fields for the answer (`Allow` on a 405).
    var headerFields: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headerFields: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headerFields = headerFields
    }
}
