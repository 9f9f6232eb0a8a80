/// A failure of one of the test servers: it could not start, or a system call failed.
///
/// Match on ``code``; the ``message`` says what happened in words:
///
/// ```swift
/// #expect(throws: MockServerError.self) { try ScriptedSocketServer(behaviour: .reset) }
/// ```
public struct MockServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// What happened, including the failing call and `errno` where there is one.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What happened.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

extension MockServerError {
    /// The kind of a ``MockServerError``: an open set of named values.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable, machine-readable name, such as `"socketFailure"`.
        public let name: String

        /// Creates a code.
        public init(_ name: String) { self.name = name }

        /// The code's ``name``.
        public var description: String { name }

        /// The HTTP server stopped before it reported a listening port, without an error of its
        /// own. (A bind failure, such as a port in use, is thrown as the bind error itself.)
        public static let serverDidNotStart = Code("serverDidNotStart")
        /// A socket call of ``ScriptedSocketServer`` failed; the message names the call and `errno`.
        public static let socketFailure = Code("socketFailure")
        /// zlib refused to compress a `/gzip` or `/deflate` body.
        public static let compressionFailed = Code("compressionFailed")
    }
}
