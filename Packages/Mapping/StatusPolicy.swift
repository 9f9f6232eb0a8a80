public import HTTPTypes

/// Which HTTP statuses count as success before a body is decoded.
///
/// A ``ResponseDecoder`` checks the status first, so an HTML error page from a proxy is
/// reported as "the server answered 502 Bad Gateway", not as a JSON syntax error. The
/// default, ``successful``, accepts every 2xx status:
///
/// ```swift
/// let decoder = ResponseDecoder(statusPolicy: .codes(200...299, 304...304))
/// ```
///
/// For envelope results, a refused status whose body is an envelope with a failure code
/// still becomes a ``BusinessError`` carrying that status, because servers that answer
/// `401` with `{"code": 401, "message": "token expired"}` mean the envelope.
public struct StatusPolicy: Sendable {
    private let predicate: @Sendable (HTTPResponse.Status) -> Bool

    /// Creates a policy from a predicate.
    ///
    /// - Parameter accepts: Returns `true` for the statuses whose bodies are decoded.
    public init(_ accepts: @escaping @Sendable (HTTPResponse.Status) -> Bool) {
        self.predicate = accepts
    }

    /// Whether the policy accepts `status`.
    ///
    /// - Parameter status: The response's status.
    /// - Returns: `true` when the body should be decoded.
    public func accepts(_ status: HTTPResponse.Status) -> Bool {
        predicate(status)
    }

    /// Every 2xx status: the default.
    public static let successful = StatusPolicy { $0.kind == .successful }

    /// Every status: the body is decoded whatever the server answered.
    public static let any = StatusPolicy { _ in true }

    /// The statuses whose codes are in the given ranges.
    ///
    /// - Parameter ranges: Status codes such as `200...299` or `304...304`.
    /// - Returns: The policy.
    public static func codes(_ ranges: ClosedRange<Int>...) -> StatusPolicy {
        StatusPolicy { status in ranges.contains { $0.contains(status.code) } }
    }
}
