#if Protobuf
    import Forms
    import Foundation
    import HTTPTypes
    import Retry

    /// A ``MessageFormable`` with its message serialised: an upload of bytes held in memory, so
    /// that Forms' pipeline sends it as any upload, with the form's path, headers, timeout,
    /// idempotency key and configuration.
    struct SerializedMessageForm<Form: MessageFormable>: UploadDataFormable {
        var form: Form
        var data: Data

        var baseURL: String? { form.baseURL }
        var path: String { form.path }
        var method: HTTPRequest.Method { form.method }
        var headers: [String: String] { form.headers }
        var parameters: Parameters { form.parameters }
        var timeout: Duration? { form.timeout }
        var idempotencyKey: IdempotencyKey? { form.idempotencyKey }
        var contentType: String { form.contentType }
        func configure(_ client: inout ClientConfiguration) { form.configure(&client) }
    }
#endif
