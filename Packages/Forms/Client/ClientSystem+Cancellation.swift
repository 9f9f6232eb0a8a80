public import HTTPTypes
public import Transport

extension ClientSystem {
    /// Cancels every request, upload and download in flight of the client the calling task
    /// sees (``configuration``): each handle fails once with a `TransportError` of category
    /// `cancelled`, as on `cancel()`. Requests of clients with a configuration of their own
    /// (``Requestable/clientConfiguration``, another `RequestRegistry`) are not affected, nor
    /// are requests sent afterwards.
    ///
    /// - Returns: How many requests the cancel reached; 0 without a configuration.
    @discardableResult
    public static func cancelAllRequests() -> Int {
        configuration?.requests.cancelAll() ?? 0
    }

    /// Cancels the client's requests in flight whose method is `method` and whose URL is `url`
    /// (the whole URL, query included, as sent).
    ///
    /// - Parameters:
    ///   - method: The method, such as `.get`.
    ///   - url: The URL.
    /// - Returns: How many requests the cancel reached; 0 without a configuration.
    @discardableResult
    public static func cancelRequests(method: HTTPRequest.Method, url: String) -> Int {
        configuration?.requests.cancel(method: method, url: url) ?? 0
    }

    /// Cancels the client's requests in flight that `predicate` picks.
    ///
    /// - Parameter predicate: Called for each request in flight, under the registry's lock:
    ///   keep it quick, and send or cancel nothing from it.
    /// - Returns: How many requests the cancel reached; 0 without a configuration.
    @discardableResult
    public static func cancelRequests(where predicate: (RequestRegistry.Request) -> Bool) -> Int {
        configuration?.requests.cancel(where: predicate) ?? 0
    }
}
