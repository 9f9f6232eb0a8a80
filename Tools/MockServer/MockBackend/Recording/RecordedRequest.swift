public import HTTPTypes

/// One request as the ``MockServer`` received it.
///
/// The server records every request head the moment it arrives, before routing, so a test can
/// prove what a client sent — or did not send — to any route, including one that never
/// answers. For example, that a redirect to another origin dropped the credentials:
///
/// ```swift
/// let requests = server.receivedRequests().filter { $0.path.hasPrefix("/echo") }
/// #expect(requests.allSatisfy { $0.headerFields[.authorization] == nil })
/// ```
public struct RecordedRequest: Hashable, Sendable {
    /// The request method, such as `GET`.
    public var method: HTTPRequest.Method
    /// The request target as sent: the path and, if present, `?` and the query, still
    /// percent-encoded (`/echo?a=1`).
    public var path: String
    /// The header fields in the order received.
    ///
    /// The `Host` header is included, first, as the client sent it (HTTP/1.1 parsers move it
    /// into the request's authority; the recorder puts it back so tests see the wire).
    public var headerFields: HTTPFields
    /// The number of body bytes the server read.
    ///
    /// Every route reads the whole body before it answers, so once a response has arrived this
    /// is the length of the body the client sent (after any transfer coding was removed).
    /// While a route is still reading it may be lower.
    public var bodyLength: Int

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The request target, path and query.
    ///   - headerFields: The header fields, `Host` first.
    ///   - bodyLength: The number of body bytes read; 0 by default.
    public init(method: HTTPRequest.Method, path: String, headerFields: HTTPFields, bodyLength: Int = 0) {
        self.method = method
        self.path = path
        self.headerFields = headerFields
        self.bodyLength = bodyLength
    }

    /// The values of every field called `name` (case-insensitive), in the order received.
    ///
    /// - Parameter name: A header name, such as `"authorization"`.
    /// - Returns: The values, empty when the header was not sent.
    public func values(forHeader name: String) -> [String] {
        guard let fieldName = HTTPField.Name(name) else { return [] }
        return headerFields[values: fieldName]
    }
}
