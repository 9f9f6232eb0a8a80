/// What a ``ResponseClassifier`` read in a response's body: a result code, its message, and
/// what the code means to the client.
public struct ResponseClassification: Sendable {
    /// What a result code means to the client.
    public enum Verdict: Sendable, Hashable {
        /// The operation succeeded.
        case success
        /// The operation failed in a way another attempt would not change ("unknown city").
        case failure
        /// The operation failed in a way another attempt may get past ("server busy"): a retry
        /// policy retries it like a `503`.
        case retryable
        /// The credential the request carried has expired ("token expired"): an
        /// authentication middleware renews it and sends the request again.
        case credentialExpired
    }

    /// What the code means.
    public var verdict: Verdict
    /// The result code as the server wrote it, such as `5031` or `"BUSY"`.
    public var code: String
    /// The server's message, when it sent one.
    public var message: String?
    /// What the classifier read, kept for the module that made it: Mapping's decoders reuse an
    /// envelope its classifier read instead of reading the body again. `nil` when there is
    /// nothing to reuse.
    public var reading: (any Sendable)?

    /// Creates a classification.
    ///
    /// - Parameters:
    ///   - verdict: What the code means.
    ///   - code: The result code as the server wrote it.
    ///   - message: The server's message, if any.
    ///   - reading: What the classifier read, for its own module's later use; `nil` by default.
    public init(verdict: Verdict, code: String, message: String? = nil, reading: (any Sendable)? = nil) {
        self.verdict = verdict
        self.code = code
        self.message = message
        self.reading = reading
    }

    /// A few words for events, log lines and errors: `code 5031 (server busy)`.
    public var reason: String {
        "code \(code)" + (message.map { " (\($0))" } ?? "")
    }
}
