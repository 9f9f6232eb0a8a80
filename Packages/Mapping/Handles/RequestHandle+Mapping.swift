public import Foundation
public import Transport

/// The decoders are views of the response's handle (``/Transport/RequestHandle/map(_:)``), made through
/// `mapBoxed(as:_:)`, whose transform and new handle need no run-time metadata lookup; the
/// ones generic over the model are inlinable, so that the module that names the model makes
/// its handle from a metatype it already has.
extension RequestHandle where Value == DataResponse {
    /// A handle for the model decoded from the response body at `keyPath`.
    ///
    /// ```swift
    /// request(WeatherForm.forecast(city: "Toronto")).decode(Forecast.self, at: "data")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - keyPath: Where the model sits in the body, such as `data` or `items.0`; the whole
    ///     body by default.
    ///   - decoder: The status policy, decoding options and envelope format; by default the
    ///     handle's `userInfo.responseDecoder` (a client's default), else `ResponseDecoder()`.
    /// - Returns: A handle that fails with a ``MappingError`` when the body does not decode.
    @inlinable
    public func decode<Model: Decodable & Sendable>(
        _ type: Model.Type = Model.self,
        at keyPath: JSONKeyPath = .root,
        decoder: ResponseDecoder? = nil
    ) -> DataRequest<Model> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<Model>.self) { response, _ in
            try decoder.decode(Model.self, from: response, at: keyPath)
        }
    }

    /// A handle for the model in a server envelope's data, after the envelope's code was
    /// checked: a non-success code fails the handle with a ``BusinessError`` (routed first,
    /// when the envelope routes that code).
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - keyPath: Where the model sits inside the envelope's data; the data itself by default.
    ///   - decoder: The envelope format and decoding options.
    @inlinable
    public func decodeEnvelope<Model: Decodable & Sendable>(
        _ type: Model.Type = Model.self,
        at keyPath: JSONKeyPath = .root,
        decoder: ResponseDecoder? = nil
    ) -> DataRequest<Model> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<Model>.self) { response, _ in
            try decoder.decodeEnvelope(Model.self, from: response, at: keyPath)
        }
    }

    /// A handle for a page of items and the cursor of the next page (the seeds' `list()`).
    ///
    /// - Parameters:
    ///   - type: The item type.
    ///   - layout: Where the items, the cursor and the has-more flag sit.
    ///   - root: Whether the layout's paths start at the body or inside the envelope's data.
    ///   - decoder: The envelope format and decoding options.
    @inlinable
    public func list<Item: Decodable & Sendable>(
        _ type: Item.Type = Item.self,
        layout: ListLayout = .default,
        in root: PayloadRoot = .body,
        decoder: ResponseDecoder? = nil
    ) -> DataRequest<ListPage<Item>> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<ListPage<Item>>.self) { response, _ in
            try decoder.list(Item.self, from: response, layout: layout, in: root)
        }
    }

    /// A handle that succeeds when the envelope's code is a success code (the seeds' `bool()`).
    ///
    /// - Parameter decoder: The envelope format.
    public func successOnly(decoder: ResponseDecoder? = nil) -> DataRequest<EnvelopeHead> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<EnvelopeHead>.self) { response, _ in try decoder.success(from: response) }
    }

    /// A handle for the body as text, in the charset of its `Content-Type` (UTF-8 by default).
    public func string(decoder: ResponseDecoder? = nil) -> DataRequest<String> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<String>.self) { response, _ in try decoder.string(from: response) }
    }

    /// A handle for the body as JSON, at `keyPath`.
    public func json(at keyPath: JSONKeyPath = .root, decoder: ResponseDecoder? = nil)
        -> DataRequest<JSONValue>
    {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<JSONValue>.self) { response, _ in
            try decoder.json(from: response, at: keyPath)
        }
    }

    /// A handle for the raw body bytes, after the status check.
    public func bytes(decoder: ResponseDecoder? = nil) -> DataRequest<Data> {
        let decoder = resolved(decoder)
        return mapBoxed(as: DataRequest<Data>.self) { response, _ in try decoder.bytes(from: response) }
    }

    /// `decoder`, else the handle's default decoder (`RequestUserInfo.responseDecoder`),
    /// else the standard one.
    @usableFromInline
    func resolved(_ decoder: ResponseDecoder?) -> ResponseDecoder {
        decoder ?? userInfo.responseDecoder ?? ResponseDecoder()
    }
}

/// The key of `RequestUserInfo.responseDecoder`.
private enum ResponseDecoderKey: RequestUserInfoKey {
    typealias Value = ResponseDecoder
}

extension RequestUserInfo {
    /// The decoder `decode`, `decodeEnvelope` and the other decoding methods use when a call
    /// names none: set it on a client's `userInfo` to give the whole client one envelope
    /// format and one set of decoding options (Bowling's globally configured `DefaultVerify`).
    ///
    /// ```swift
    /// client.userInfo.responseDecoder = ResponseDecoder(envelope: ShopEnvelope())
    /// ```
    public var responseDecoder: ResponseDecoder? {
        get { self[ResponseDecoderKey.self] }
        set { self[ResponseDecoderKey.self] = newValue }
    }
}
