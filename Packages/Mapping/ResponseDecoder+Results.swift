public import Foundation
public import Transport

// MARK: - Lists

extension ResponseDecoder {
    /// Decodes one page of a list: its items and its next-page cursor.
    ///
    /// With the default layout, `{"items": [...], "next_cursor": "abc", "has_more": true}`
    /// gives the items, the cursor `"abc"` and `hasMore == true`:
    ///
    /// ```swift
    /// let page = try decoder.list(Day.self, from: response, layout: ListLayout(items: "days", cursor: "next"))
    /// let all = try decoder.list(Day.self, from: response, layout: .init(items: .root, cursor: nil, hasMore: nil))
    /// let wrapped = try decoder.list(Day.self, from: response, in: .envelope)   // paths inside `data`
    /// ```
    ///
    /// - Parameters:
    ///   - type: The item type.
    ///   - response: The response.
    ///   - layout: Where the items, the cursor and the flag are; ``ListLayout/default`` by default.
    ///   - root: Where the layout's paths start; ``PayloadRoot/body`` by default.
    /// - Returns: The page.
    /// - Throws: ``MappingError`` when the items are missing or do not decode, or the cursor or
    ///   flag has an unusable type; ``BusinessError`` for a failure envelope with
    ///   ``PayloadRoot/envelope``.
    public func list<Item: Decodable>(
        _ type: Item.Type = Item.self,
        from response: DataResponse,
        layout: ListLayout = .default,
        in root: PayloadRoot = .body
    ) throws -> ListPage<Item> {
        try read(ResponseInput(response), in: root, PageReader<Item>(layout: layout).read)
    }

    /// Decodes one page of a list from a JSON document.
    ///
    /// The same as ``list(_:from:layout:in:)-(_,DataResponse,_,_)`` without a status or URL.
    ///
    /// - Parameters:
    ///   - type: The item type.
    ///   - data: The JSON document.
    ///   - layout: Where the items, the cursor and the flag are; ``ListLayout/default`` by default.
    ///   - root: Where the layout's paths start; ``PayloadRoot/body`` by default.
    /// - Returns: The page.
    /// - Throws: ``MappingError``, or ``BusinessError`` with ``PayloadRoot/envelope``.
    public func list<Item: Decodable>(
        _ type: Item.Type = Item.self,
        from data: Data,
        layout: ListLayout = .default,
        in root: PayloadRoot = .body
    ) throws -> ListPage<Item> {
        try read(ResponseInput(data), in: root, PageReader<Item>(layout: layout).read)
    }
}

// MARK: - Success only

extension ResponseDecoder {
    /// Checks that a response's envelope reports success, and nothing more.
    ///
    /// For endpoints whose answer carries no data worth decoding (a delete, a like), the
    /// envelope's code is the whole result:
    ///
    /// ```swift
    /// let head = try decoder.success(from: response)   // throws BusinessError unless code is 200
    /// print(head.message ?? "Done")
    /// ```
    ///
    /// - Parameter response: The response.
    /// - Returns: The envelope's code and message.
    /// - Throws: ``BusinessError`` for a failure code (after routing); ``MappingError`` when
    ///   the status is refused or the body is not an envelope.
    @discardableResult
    public func success(from response: DataResponse) throws -> EnvelopeHead {
        try readEnvelopeHead(ResponseInput(response))
    }

    /// Checks that a JSON document's envelope reports success, and nothing more.
    ///
    /// - Parameter data: The JSON document.
    /// - Returns: The envelope's code and message.
    /// - Throws: ``BusinessError`` for a failure code; ``MappingError`` when the body is not
    ///   an envelope.
    @discardableResult
    public func success(from data: Data) throws -> EnvelopeHead {
        try readEnvelopeHead(ResponseInput(data))
    }
}

// MARK: - JSON, text and bytes

extension ResponseDecoder {
    /// Decodes a body, or the value at a key path, as a ``JSONValue``: JSON without a model.
    ///
    /// ```swift
    /// let days = try decoder.json(from: response, at: "data.three_day_forecast")
    /// days[0]?["day"]?.stringValue   // "Monday"
    /// ```
    ///
    /// Object keys are kept as the server wrote them, whatever the key strategy.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - path: Where the value is; the whole document by default.
    ///   - root: Where `path` starts; ``PayloadRoot/body`` by default.
    /// - Returns: The value.
    /// - Throws: ``MappingError`` when the status is refused, the body is empty or not JSON, or
    ///   the path leads nowhere; ``BusinessError`` with ``PayloadRoot/envelope``.
    public func json(
        from response: DataResponse,
        at path: JSONKeyPath = .root,
        in root: PayloadRoot = .body
    ) throws -> JSONValue {
        try decode(JSONValue.self, from: response, at: path, in: root)
    }

    /// Decodes a JSON document, or the value at a key path, as a ``JSONValue``.
    ///
    /// - Parameters:
    ///   - data: The JSON document.
    ///   - path: Where the value is; the whole document by default.
    ///   - root: Where `path` starts; ``PayloadRoot/body`` by default.
    /// - Returns: The value.
    /// - Throws: ``MappingError``, or ``BusinessError`` with ``PayloadRoot/envelope``.
    public func json(from data: Data, at path: JSONKeyPath = .root, in root: PayloadRoot = .body) throws -> JSONValue {
        try decode(JSONValue.self, from: data, at: path, in: root)
    }

    /// Reads a response's body as text, in the character set its `Content-Type` names.
    ///
    /// `text/plain; charset=ISO-8859-1` is read as Latin-1; a response without a charset is
    /// read as UTF-8. UTF-8, US-ASCII, ISO-8859-1 and -2, windows-1250 to -1254, UTF-16 and
    /// UTF-32 (with or without an endianness), Shift_JIS, EUC-JP and ISO-2022-JP are
    /// supported. An empty body is the empty string.
    ///
    /// ```swift
    /// let page = try decoder.string(from: response)
    /// ```
    ///
    /// - Parameter response: The response.
    /// - Returns: The text.
    /// - Throws: ``MappingError`` when the status is refused
    ///   (`.unacceptableStatus`), the charset is not supported
    ///   (`.unsupportedCharset`) or the bytes are not valid in it
    ///   (`.undecodableText`).
    public func string(from response: DataResponse) throws -> String {
        let input = ResponseInput(response)
        try checkStatus(of: input)
        return try text(of: input, charset: input.contentType.flatMap { MediaType($0).charset })
    }

    /// Reads bytes as text in a character set.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - charset: An IANA charset name such as `utf-8` or `ISO-8859-1`; UTF-8 when `nil`,
    ///     the default.
    /// - Returns: The text.
    /// - Throws: ``MappingError`` when the charset is not supported or the bytes are not
    ///   valid in it.
    public func string(from data: Data, charset: String? = nil) throws -> String {
        try text(of: ResponseInput(data), charset: charset)
    }

    /// A response's body as it arrived, once its status is accepted.
    ///
    /// - Parameter response: The response.
    /// - Returns: The body.
    /// - Throws: ``MappingError`` of category `.unacceptableStatus` when the
    ///   ``statusPolicy`` refuses the status.
    public func bytes(from response: DataResponse) throws -> Data {
        try validate(response)
        return response.body
    }

    /// Checks a response's status against the ``statusPolicy``, without reading the body.
    ///
    /// - Parameter response: The response.
    /// - Throws: ``MappingError`` of category `.unacceptableStatus` when the
    ///   policy refuses the status; its message describes the body (an HTML page's title, say).
    public func validate(_ response: DataResponse) throws {
        try checkStatus(of: ResponseInput(response))
    }

    private func text(of input: ResponseInput, charset: String?) throws -> String {
        let name = (charset ?? "utf-8").lowercased()
        guard let encoding = MediaType.encoding(forCharset: name) else {
            throw MappingError(
                .unsupportedCharset,
                message: "The body \(input.origin) is in the character set \"\(name)\", which cannot be decoded "
                    + "here. Read it with `bytes(from:)` and convert it yourself.",
                url: input.url,
                status: input.status
            )
        }
        guard !input.body.isEmpty else { return "" }
        guard let text = String(data: input.body, encoding: encoding) else {
            throw MappingError(
                .undecodableText,
                message: "The body \(input.origin) is not valid \(name) text. The server may have sent another "
                    + "character set than its Content-Type names, or binary data.",
                url: input.url,
                status: input.status,
                excerpt: BodyExcerpt.make(from: input.body)
            )
        }
        return text
    }
}

// MARK: - Server-described errors

extension ResponseDecoder {
    /// Reads the error a server describes in a response's body, whatever the HTTP status.
    ///
    /// Use it to show a server's own message: decode the type at its
    /// ``JSONErrorable/keyPath``, then ask it ``Errorable/isFailure``:
    ///
    /// ```swift
    /// if let error = decoder.decodeErrorable(WeatherError.self, from: response), error.isFailure {
    ///     warn(error.message ?? "The weather service refused the request.")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The error type.
    ///   - response: The response, of any status.
    /// - Returns: The decoded error, or `nil` when the body does not hold one (empty, not
    ///   JSON, or another shape). It is returned whether or not it describes a failure.
    public func decodeErrorable<E: JSONErrorable>(_ type: E.Type = E.self, from response: DataResponse) -> E? {
        decodeErrorable(type, from: response.body)
    }

    /// Reads the error a JSON document describes.
    ///
    /// - Parameters:
    ///   - type: The error type.
    ///   - data: The JSON document.
    /// - Returns: The decoded error, or `nil` when the document does not hold one.
    public func decodeErrorable<E: JSONErrorable>(_ type: E.Type = E.self, from data: Data) -> E? {
        guard !ResponseInput(data).isBlank else { return nil }
        return try? PayloadReading.run(on: data, options: options) { decoder, walker, base in
            try walker.decode(E.self, from: decoder, at: base + E.keyPath)
        }
    }
}
