public import HTTPTypes

/// Where a response came from, as ``HTTPCache`` marks it in the `X-Parley-Cache` header of
/// every `GET` and `HEAD` response it handles.
///
/// ```swift
/// let response = try await transport.data(for: request)
/// if CacheStatus(response.head) == .hit { print("from the cache, sent nothing") }
/// ```
///
/// Responses to other methods, and requests the cache passes by (a `Range`, the caller's own
/// `If-None-Match`, a disabled cache), carry no mark.
public enum CacheStatus: String, Sendable, Hashable, CaseIterable {
    /// Answered from the cache; nothing was sent.
    case hit
    /// The stored response was revalidated: the server answered `304 Not Modified`, and the
    /// stored body was returned with the refreshed header fields and its stored status.
    case revalidated
    /// Answered by the network (a new response, or a changed one after a conditional request).
    case miss
    /// A stored response that is no longer fresh: returned by
    /// ``HTTPCache/cachedResponse(for:)`` for a "cache, then network" screen, and by the cache
    /// itself where RFC 5861 allows it (`stale-while-revalidate` while it revalidates in the
    /// background, `stale-if-error` instead of a failure).
    case stale

    // swift-format-ignore: NeverForceUnwrap
    /// `X-Parley-Cache`, the header the mark travels in.
    public static let headerName = HTTPField.Name("X-Parley-Cache")!

    /// The mark in `head`, or `nil` when the cache did not mark it.
    ///
    /// - Parameter head: A response head.
    public init?(_ head: HTTPResponse) {
        guard let value = head.headerFields[Self.headerName], let status = CacheStatus(rawValue: value) else {
            return nil
        }
        self = status
    }
}
