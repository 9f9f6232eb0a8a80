public import Foundation
public import Transport

/// Turns HTTP responses into values: models at key paths, envelopes, lists, text and JSON.
///
/// A `ResponseDecoder` is a small value: the ``DecodingOptions`` of its `JSONDecoder`, the
/// ``StatusPolicy`` that says which HTTP statuses are decoded, and the ``EnvelopeFormat``
/// the server wraps its answers in. Make one per server, keep it anywhere (it is
/// `Sendable`), and call it with a `DataResponse` from a transport, or with raw `Data`:
///
/// ```swift
/// let decoder = ResponseDecoder()
/// let response = try await transport.data(for: request)
///
/// let forecast = try decoder.decode(Forecast.self, from: response, at: "data")
/// let days = try decoder.decode([Day].self, from: response, at: "data.three_day_forecast")
/// let checked = try decoder.decodeEnvelope(Forecast.self, from: response)   // code checked first
/// ```
///
/// The body is parsed once: the value at a key path is decoded in place by the
/// `JSONDecoder` that parses the body, never re-serialised and parsed again.
///
/// Every method checks the HTTP status first (for a `DataResponse`), then reads the body.
/// Failures are typed: a ``MappingError`` names the URL, the status, the coding path that
/// failed, what was expected and found, and a redacted excerpt of the body; an envelope
/// whose code is not a success code becomes a ``BusinessError``.
public struct ResponseDecoder: Sendable {
    /// How JSON is read; ``DecodingOptions/default`` unless set.
    public var options: DecodingOptions
    /// Which HTTP statuses are decoded; ``StatusPolicy/successful`` (2xx) unless set.
    public var statusPolicy: StatusPolicy
    /// The envelope the server wraps answers in, for the envelope methods; ``StandardEnvelope``
    /// (`code`, `message`, `data`, success code `200`) unless set.
    public var envelope: any EnvelopeFormat

    /// Creates a response decoder.
    ///
    /// - Parameters:
    ///   - options: How JSON is read; ``DecodingOptions/default`` by default (keys as
    ///     written, ISO 8601 dates).
    ///   - statusPolicy: Which HTTP statuses are decoded; ``StatusPolicy/successful`` (2xx)
    ///     by default.
    ///   - envelope: The server's envelope; ``StandardEnvelope`` by default.
    public init(
        options: DecodingOptions = .default,
        statusPolicy: StatusPolicy = .successful,
        envelope: some EnvelopeFormat = StandardEnvelope()
    ) {
        self.options = options
        self.statusPolicy = statusPolicy
        self.envelope = envelope
    }
}

/// Where the key paths of a payload start: the whole body, or the data of its envelope.
public enum PayloadRoot: Sendable, Hashable {
    /// The whole body; the envelope, if any, is not checked.
    case body
    /// The envelope's data, read only after the envelope's code is checked.
    case envelope
}

// MARK: - Models

extension ResponseDecoder {
    /// Decodes a value at a key path of a response's body.
    ///
    /// The status is checked against ``statusPolicy``, then the body is parsed once and the
    /// value at `path` decoded in place:
    ///
    /// ```swift
    /// let forecast = try decoder.decode(Forecast.self, from: response, at: "data")
    /// let conditions = try decoder.decode(String.self, from: response, at: "data.three_day_forecast.1.conditions")
    /// ```
    ///
    /// When the last component of `path` is absent and `T` is an `Optional`, the result is
    /// `nil`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - response: The response.
    ///   - path: Where the value is; ``JSONKeyPath/root``, the whole document, by default.
    ///   - root: Where `path` starts; ``PayloadRoot/body`` by default. With
    ///     ``PayloadRoot/envelope`` the envelope's code is checked first and `path` starts at
    ///     its data.
    /// - Returns: The decoded value.
    /// - Throws: ``MappingError`` when the status is refused, the body is empty or not JSON,
    ///   the path leads nowhere, or the value does not decode; with ``PayloadRoot/envelope``,
    ///   ``BusinessError`` when the envelope's code is not a success code. Errors thrown by
    ///   the model's own `init(from:)` are passed through.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        from response: DataResponse,
        at path: JSONKeyPath = .root,
        in root: PayloadRoot = .body
    ) throws -> T {
        try read(ResponseInput(response), in: root) { decoder, walker, base in
            try walker.decode(T.self, from: decoder, at: base + path)
        }
    }

    /// Decodes a value at a key path of a JSON document.
    ///
    /// The same as ``decode(_:from:at:in:)-(_,DataResponse,_,_)`` without a status to check
    /// or a URL to name in errors.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON document.
    ///   - path: Where the value is; the whole document by default.
    ///   - root: Where `path` starts; ``PayloadRoot/body`` by default.
    /// - Returns: The decoded value.
    /// - Throws: ``MappingError``, or ``BusinessError`` with ``PayloadRoot/envelope``.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        from data: Data,
        at path: JSONKeyPath = .root,
        in root: PayloadRoot = .body
    ) throws -> T {
        try read(ResponseInput(data), in: root) { decoder, walker, base in
            try walker.decode(T.self, from: decoder, at: base + path)
        }
    }

    /// Checks a response's envelope, then decodes a value from its data.
    ///
    /// With the default envelope, `{"code": 200, "message": "ok", "data": {...}}` gives the
    /// value decoded from `data`; any code but `200` throws a ``BusinessError`` carrying the
    /// code and message, after the envelope's ``EnvelopeFormat/route(_:)`` has seen it:
    ///
    /// ```swift
    /// let forecast = try decoder.decodeEnvelope(Forecast.self, from: response)
    /// let days = try decoder.decodeEnvelope([Day].self, from: response, at: "three_day_forecast")
    /// ```
    ///
    /// A refused HTTP status whose body is a failure envelope also throws the
    /// ``BusinessError`` (with the status), not a ``MappingError``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - response: The response.
    ///   - path: Where the value is inside the envelope's data; the data itself by default.
    /// - Returns: The decoded value.
    /// - Throws: ``BusinessError`` for a failure code; ``MappingError`` when the status is
    ///   refused, the body is not an envelope, or the data does not decode.
    public func decodeEnvelope<T: Decodable>(
        _ type: T.Type = T.self,
        from response: DataResponse,
        at path: JSONKeyPath = .root
    ) throws -> T {
        try decode(type, from: response, at: path, in: .envelope)
    }

    /// Checks a JSON document's envelope, then decodes a value from its data.
    ///
    /// The same as ``decodeEnvelope(_:from:at:)-(_,DataResponse,_)`` without a status or URL.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON document.
    ///   - path: Where the value is inside the envelope's data; the data itself by default.
    /// - Returns: The decoded value.
    /// - Throws: ``BusinessError`` for a failure code; ``MappingError`` otherwise.
    public func decodeEnvelope<T: Decodable>(
        _ type: T.Type = T.self,
        from data: Data,
        at path: JSONKeyPath = .root
    ) throws -> T {
        try decode(type, from: data, at: path, in: .envelope)
    }
}
