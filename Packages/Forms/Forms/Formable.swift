public import Foundation
public import HTTPTypes
public import Retry
public import Transport

/// The parameters of a form: names to values.
///
/// Values may be strings, numbers, booleans, arrays and nested dictionaries of those; how
/// they reach the server depends on the form's ``Formable/encoding``.
public typealias Parameters = [String: any Sendable]

/// What every form has: where it goes, how, and with what.
///
/// A business module describes each endpoint as a small type (an enum of cases, a struct, a
/// class) conforming to one of the form protocols; everything but ``path`` has a default
/// from a protocol extension, so a team sets its global defaults in one extension of its
/// own and a form overrides per case:
///
/// ```swift
/// enum WeatherForm: RequestFormable {
///     case forecast(city: String)
///     var path: String { "/weather" }
///     var parameters: Parameters { switch self { case .forecast(let city): ["city": city] } }
/// }
/// ```
public protocol Formable: Sendable {
    /// The server, such as `https://api.example.com`; `nil` (the default) uses the client's
    /// ``ClientConfiguration/baseURL``.
    var baseURL: String? { get }
    /// The path below the base URL, such as `/weather`.
    var path: String { get }
    /// The method; `GET` by default for requests and downloads, `POST` for uploads.
    var method: HTTPRequest.Method { get }
    /// Header fields of this form, added after the client's; none by default.
    var headers: [String: String] { get }
    /// The parameters; none by default.
    var parameters: Parameters { get }
    /// How ``parameters`` are sent; ``ParameterEncoding/automatic`` by default.
    var encoding: ParameterEncoding { get }
    /// A body built from any `Encodable` value, sent as JSON; `nil` by default.
    var jsonBody: (any Encodable & Sendable)? { get }
    /// The deadline of the whole request; `nil` (the default) uses the client's.
    var timeout: Duration? { get }
    /// The `Idempotency-Key` each request of this form carries: `nil` (the default) for none.
    ///
    /// A key lets the client's ``ClientConfiguration/retry`` policy retry a POST or PATCH
    /// that failed after it may have reached the server: `.generated` makes a new key per
    /// request (sent unchanged on each of its attempts and reloads), `.value(_:)` uses yours.
    var idempotencyKey: IdempotencyKey? { get }
    /// Adjusts the client's configuration for this form's requests only; does nothing by
    /// default.
    ///
    /// Everything the client decides can be overridden here, per form or per case: logging
    /// off for a form that carries secrets, a larger body limit or no redirects for an
    /// export, another retry policy, plugin, middleware or transport.
    ///
    /// ```swift
    /// func configure(_ client: inout ClientConfiguration) {
    ///     client.isLoggingEnabled = false
    ///     client.transferOptions.maximumBodySize = 512 << 20
    /// }
    /// ```
    ///
    /// - Parameter client: A copy of the configuration the request would use.
    func configure(_ client: inout ClientConfiguration)
}

extension Formable {
    /// `nil`: the client's base URL.
    public var baseURL: String? { nil }
    /// `GET`.
    public var method: HTTPRequest.Method { .get }
    /// No headers of the form's own.
    public var headers: [String: String] { [:] }
    /// No parameters.
    public var parameters: Parameters { [:] }
    /// ``ParameterEncoding/automatic``.
    public var encoding: ParameterEncoding { .automatic }
    /// No `Encodable` body.
    public var jsonBody: (any Encodable & Sendable)? { nil }
    /// `nil`: the client's timeout.
    public var timeout: Duration? { nil }
    /// `nil`: no `Idempotency-Key`.
    public var idempotencyKey: IdempotencyKey? { nil }
    /// Leaves the client's configuration as it is.
    public func configure(_ client: inout ClientConfiguration) {}
}

/// A form for an ordinary request whose response is kept in memory.
public protocol RequestFormable: Formable {}

/// A form that uploads bytes held in memory.
public protocol UploadDataFormable: Formable {
    /// The bytes to send.
    var data: Data { get }
    /// The `Content-Type` of ``data``; `application/octet-stream` by default.
    var contentType: String { get }
}

/// A form that uploads a file, streamed from disk.
public protocol UploadFileFormable: Formable {
    /// The file to send.
    var fileURL: URL { get }
    /// The `Content-Type` of the file; `application/octet-stream` by default.
    var contentType: String { get }
}

/// A form that uploads bytes produced by an asynchronous stream.
public protocol UploadStreamFormable: Formable {
    /// The body; make it replayable (`RequestBody.stream(length:_:)`) to survive redirects and retries.
    var stream: RequestBody { get }
    /// The `Content-Type` of the stream; `application/octet-stream` by default.
    var contentType: String { get }
}

/// A form that uploads `multipart/form-data`.
public protocol UploadMultipartFormable: Formable {
    /// The parts: text fields and files.
    var multipart: MultipartFormData { get }
}

extension UploadDataFormable {
    /// `POST`.
    public var method: HTTPRequest.Method { .post }
    /// `application/octet-stream`.
    public var contentType: String { "application/octet-stream" }
}

extension UploadFileFormable {
    /// `POST`.
    public var method: HTTPRequest.Method { .post }
    /// `application/octet-stream`.
    public var contentType: String { "application/octet-stream" }
}

extension UploadStreamFormable {
    /// `POST`.
    public var method: HTTPRequest.Method { .post }
    /// `application/octet-stream`.
    public var contentType: String { "application/octet-stream" }
}

extension UploadMultipartFormable {
    /// `POST`.
    public var method: HTTPRequest.Method { .post }
}
