public import Foundation
public import HTTPTypes

/// Everything a transport needs to perform one HTTP transfer: the request head, an optional
/// body, and the options that govern the transfer.
///
/// The head is swift-http-types' `HTTPRequest`, the shared vocabulary of the Swift server
/// ecosystem. Build requests with the throwing initialiser, which validates the URL and the
/// header fields strictly: a CR, LF or NUL anywhere is rejected with a typed error instead of
/// being sent (or silently rewritten).
///
/// ```swift
/// var request = try TransportRequest(method: .post, url: "https://api.example.com/v1/items",
///                                    headers: ["Authorization": "Bearer \(token)"],
///                                    body: .bytes(json))
/// request.options.deadline = .seconds(5)
/// let response = try await transport.data(for: request)
/// ```
public struct TransportRequest: Sendable {
    /// The method, scheme, authority, path and header fields.
    ///
    /// Changing the head directly (rather than through ``setHeader(_:_:)`` or
    /// ``addHeader(_:_:)``) makes the engine check the whole head again before sending it.
    public var head: HTTPRequest {
        // No `oldValue`: the head is still changed in place, without a copy of its fields.
        didSet { validatedURL = nil }
    }
    /// The bytes to send, if any.
    public var body: RequestBody?
    /// Timeouts, limits, redirect policy and observers for this transfer; nothing set by default.
    ///
    /// Only the options set here override the engine's defaults; see ``TransferOptions``.
    public var options: TransferOptions
    /// Values for the code around the transfer (plugins, middleware, presenters); the engine
    /// never reads them. Empty by default.
    public var userInfo = RequestUserInfo()
    /// The absolute URL, set when ``init(method:url:headers:body:options:)-(_,String,_,_,_)``
    /// has checked the URL and every field, and cleared by any later change of ``head`` that
    /// does not check what it adds. An engine sends a request that carries it without checking
    /// the head again, and checks one without it with ``RequestValidation/validate(_:)``, so a
    /// request is validated once on its way to the socket.
    package private(set) var validatedURL: String?

    /// Creates a request from an `HTTPRequest` you have built yourself.
    ///
    /// swift-http-types replaces CR, LF and NUL in field values with spaces when you build the
    /// fields, so they cannot inject headers; the engine still checks the URL parts and every
    /// field again before opening a socket.
    ///
    /// - Parameters:
    ///   - head: The request head; its scheme, authority and path form the URL.
    ///   - body: The body, `nil` by default.
    ///   - options: The transfer options, ``TransferOptions/init()`` (nothing set, so the engine's
    ///     defaults apply) by default.
    public init(head: HTTPRequest, body: RequestBody? = nil, options: TransferOptions = TransferOptions()) {
        self.head = head
        self.body = body
        self.options = options
    }

    /// Creates a request from a URL string and header pairs, validating both.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields, in order; repeated names are kept as separate fields.
    ///   - body: The body, `nil` by default.
    ///   - options: The transfer options, ``TransferOptions/init()`` (nothing set, so the engine's
    ///     defaults apply) by default.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidURL``
    ///   for a malformed or non-HTTP URL or one holding whitespace or control characters, and
    ///   ``ErrorCategory/invalidHeader`` for a bad header name or a value
    ///   holding CR, LF or NUL.
    public init(
        method: HTTPRequest.Method,
        url: String,
        headers: KeyValuePairs<String, String> = [:],
        body: RequestBody? = nil,
        options: TransferOptions = TransferOptions()
    ) throws {
        let (parts, isCanonical) = try RequestValidation.split(url)
        var fields = HTTPFields()
        for (name, value) in headers {
            fields.append(try RequestValidation.field(name: name, value: value))
        }
        self.head = HTTPRequest(
            method: method,
            scheme: parts.scheme,
            authority: parts.authority,
            path: parts.path,
            headerFields: fields
        )
        self.body = body
        self.options = options
        // The URL as given when it is already what the parts make, most often: no second string.
        self.validatedURL = isCanonical ? url : "\(parts.scheme)://\(parts.authority)\(parts.path)"
    }

    /// Creates a request from a Foundation `URL`.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields, in order.
    ///   - body: The body, `nil` by default.
    ///   - options: The transfer options.
    /// - Throws: The same errors as ``init(method:url:headers:body:options:)-(_,String,_,_,_)``.
    public init(
        method: HTTPRequest.Method,
        url: URL,
        headers: KeyValuePairs<String, String> = [:],
        body: RequestBody? = nil,
        options: TransferOptions = TransferOptions()
    ) throws {
        try self.init(method: method, url: url.absoluteString, headers: headers, body: body, options: options)
    }

    /// The absolute URL the head describes: `scheme://authority/path`.
    public var url: String {
        validatedURL ?? "\(head.scheme ?? "http")://\(head.authority ?? "")\(head.path ?? "/")"
    }

    /// Appends a header field after validating it.
    ///
    /// - Parameters:
    ///   - name: The field name; must be an RFC 9110 token.
    ///   - value: The field value; must not contain CR, LF or NUL.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidHeader``.
    public mutating func addHeader(_ name: String, _ value: String) throws {
        let field = try RequestValidation.field(name: name, value: value)
        changeCheckedFields { $0.append(field) }
    }

    /// Sets a header field (replacing every field of that name) after validating it.
    ///
    /// - Parameters:
    ///   - name: The field name; must be an RFC 9110 token.
    ///   - value: The field value; must not contain CR, LF or NUL.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/invalidHeader``.
    public mutating func setHeader(_ name: String, _ value: String) throws {
        let field = try RequestValidation.field(name: name, value: value)
        changeCheckedFields { $0[field.name] = field.value }
    }

    /// Changes the header fields with fields already checked, so the head stays as valid as it
    /// was: the validation record that any other change of ``head`` clears is kept.
    private mutating func changeCheckedFields(_ change: (inout HTTPFields) -> Void) {
        let validated = validatedURL
        change(&head.headerFields)
        validatedURL = validated
    }
}
