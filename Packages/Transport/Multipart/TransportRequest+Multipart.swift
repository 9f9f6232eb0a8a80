public import HTTPTypes

extension TransportRequest {
    /// Creates a request whose body is a `multipart/form-data` form, validating the URL and
    /// the headers.
    ///
    /// The body is ``MultipartFormData/makeBody()`` and `Content-Type` is the form's
    /// ``MultipartFormData/contentType``, replacing a `Content-Type` in `headers`.
    ///
    /// ```swift
    /// var form = MultipartFormData()
    /// try form.addField(name: "caption", value: "Toronto at night")
    /// try form.addFile(path: "/tmp/skyline.jpg", name: "photo")
    /// let request = try TransportRequest(method: .post, url: "https://api.example.com/photos", multipart: form)
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method, usually `.post`.
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields, in order.
    ///   - form: The form to send.
    ///   - options: The transfer options, ``TransferOptions/init()`` by default.
    /// - Throws: The errors of ``init(method:url:headers:body:options:)-(_,String,_,_,_)``, and those of
    ///   ``MultipartFormData/makeBody()`` (a missing or unreadable file).
    public init(
        method: HTTPRequest.Method,
        url: String,
        headers: KeyValuePairs<String, String> = [:],
        multipart form: MultipartFormData,
        options: TransferOptions = TransferOptions()
    ) throws {
        try self.init(method: method, url: url, headers: headers, body: nil, options: options)
        try setMultipartBody(form)
    }

    /// Sets the body to a `multipart/form-data` form and `Content-Type` to its
    /// ``MultipartFormData/contentType`` (replacing any `Content-Type` field).
    ///
    /// - Parameter form: The form to send; its files are measured now.
    /// - Throws: The errors of ``MultipartFormData/makeBody()``: ``TransportError`` with category
    ///   ``ErrorCategory/invalidBody`` naming a file that is missing,
    ///   unreadable or not a regular file. The request is unchanged when it throws.
    public mutating func setMultipartBody(_ form: MultipartFormData) throws {
        let body = try form.makeBody()
        try setHeader("Content-Type", form.contentType)
        self.body = body
    }
}
