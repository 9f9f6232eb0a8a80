import HTTPTypes
public import Transport

extension RequestHandle {
    /// A handle for this handle's value together with the response it was decoded from.
    ///
    /// One mechanism for every way of reading a response: chain it after `decode(_:at:decoder:)`,
    /// `decodeEnvelope(_:at:decoder:)`, `list(_:layout:in:decoder:)`, `string(decoder:)`,
    /// `json(at:decoder:)`, or a `map` of your own:
    ///
    /// ```swift
    /// let decoded = try await api.request(form).decode(Forecast.self, at: "data").withResponse().value
    /// decoded.value     // the Forecast
    /// decoded.response  // its head and body, as the server sent them
    /// ```
    ///
    /// The new handle is a view of the same request (see `map`): the decoder runs once per
    /// outcome for this handle and the decoded one together, and the response is the request's
    /// own `DataResponse`, its body shared, not copied.
    ///
    /// - Returns: A handle whose value is a ``Decoded``; it fails as this one does, and with a
    ///   ``MappingError`` of category `other` when the request's own value is not a collected
    ///   response (a download's handle, say).
    public func withResponse() -> DataRequest<Decoded<Value>> {
        mapWithSource(DataResponse.self) { value, response, info in
            guard let response else {
                throw MappingError(
                    .other,
                    message: "withResponse() needs a handle of a request whose response is collected in memory "
                        + "(request(_:) or an upload, then decode); this handle's request produces something else.",
                    url: info?.url, status: info?.head.status)
            }
            return Decoded(value: value, response: response)
        }
    }
}
