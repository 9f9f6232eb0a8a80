public import HTTPTypes
public import Transport

extension Requestable {
    /// Cancels every request, upload and download in flight of this type's client
    /// (``clientConfiguration``), those of other types sharing the client included: each
    /// handle fails once with a `TransportError` of category `cancelled`, as on `cancel()`.
    ///
    /// Requests sent afterwards are not affected. See `RequestRegistry` for requests awaited
    /// with ``data(for:options:)``, whose calling task is cancelled.
    ///
    /// - Returns: How many requests the cancel reached; 0 without a client.
    @discardableResult
    public func cancelAllRequests() -> Int {
        clientConfiguration?.requests.cancelAll() ?? 0
    }

    /// Cancels the requests in flight of this type's client whose method is `method` and whose
    /// URL is `url` (the whole URL, query included, as sent).
    ///
    /// - Parameters:
    ///   - method: The method, such as `.get`.
    ///   - url: The URL.
    /// - Returns: How many requests the cancel reached; 0 without a client.
    @discardableResult
    public func cancelRequests(method: HTTPRequest.Method, url: String) -> Int {
        clientConfiguration?.requests.cancel(method: method, url: url) ?? 0
    }

    /// Cancels the requests in flight of this type's client that `predicate` picks.
    ///
    /// - Parameter predicate: Called for each request in flight, under the registry's lock:
    ///   keep it quick, and send or cancel nothing from it.
    /// - Returns: How many requests the cancel reached; 0 without a client.
    @discardableResult
    public func cancelRequests(where predicate: (RequestRegistry.Request) -> Bool) -> Int {
        clientConfiguration?.requests.cancel(where: predicate) ?? 0
    }
}
