public import Transport

/// A decoded value with the response it was decoded from: the raw answer beside the typed
/// one, for code that needs a header, the status or the bytes as well as the model (a
/// signature over the body, a cache of its own, a log of what was read).
///
/// Made by `RequestHandle.withResponse()` on a decoded handle:
///
/// ```swift
/// let decoded = try await api.request(form).decodeEnvelope(Forecast.self).withResponse().value
/// print(decoded.value.location, decoded.response.head.headerFields[.eTag] ?? "-", decoded.response.body.count)
/// ```
///
/// The response is the one the request received, not a copy: its `body` shares the bytes
/// the engine collected (a `Data` is copied only when written to), and the model is the one
/// the handle decoded, once.
public struct Decoded<Value: Sendable>: Sendable {
    /// The model.
    public var value: Value
    /// The response it was decoded from: the head, the body as received, the URL and metrics.
    public var response: DataResponse

    /// Pairs a value with its response.
    ///
    /// - Parameters:
    ///   - value: The model.
    ///   - response: The response it was decoded from.
    public init(value: Value, response: DataResponse) {
        self.value = value
        self.response = response
    }
}
