#if Protobuf
    public import Forms
    public import HTTPTypes
    public import SwiftProtobuf

    /// A form whose body is a Protocol Buffers message, sent in the binary format: send it with
    /// `request(_:options:startImmediately:)` of a `Requestable`.
    ///
    /// ```swift
    /// struct ReportForm: MessageFormable {
    ///     var report: Parley_Weather_Report
    ///     var path: String { "/weather/report" }
    ///     var message: Parley_Weather_Report { report }
    /// }
    ///
    /// let echoed = try await screen.request(ReportForm(report: report))
    ///     .decodeMessage(Parley_Weather_Report.self).value
    /// ```
    ///
    /// Everything else is a form's as usual, with these defaults: `POST`, `Content-Type` and
    /// `Accept` ``ProtobufMediaType/standard`` (`application/x-protobuf`; set ``contentType``
    /// and `headers` for a server that wants `application/protobuf`). The form's `parameters`
    /// go into the URL's query, as an upload's do; its `jsonBody` and `encoding` are not used.
    /// A message that cannot be serialised (a proto2 message missing a required field) fails
    /// the handle with Forms' `FormError` of category `invalidParameters`, before anything is
    /// sent.
    public protocol MessageFormable: Formable {
        /// The message type of the body.
        associatedtype Body: SwiftProtobuf.Message
        /// The body.
        var message: Body { get }
        /// The `Content-Type` of the body; ``ProtobufMediaType/standard`` by default.
        var contentType: String { get }
    }

    extension MessageFormable {
        /// `POST`.
        public var method: HTTPRequest.Method { .post }
        /// ``ProtobufMediaType/standard``.
        public var contentType: String { ProtobufMediaType.standard }
        /// `Accept: application/x-protobuf`: the answer in the same format.
        public var headers: [String: String] { ["Accept": ProtobufMediaType.standard] }
    }
#endif
