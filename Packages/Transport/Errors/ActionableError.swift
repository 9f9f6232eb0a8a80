/// An error whose ``message`` tells a person what happened and what to do.
///
/// ``TransportError`` conforms, and so do the errors of the layers above (mapping, business
/// errors), so a failure handler can show ``RequestFailure/message`` whichever layer failed.
public protocol ActionableError: Error {
    /// A sentence a person can act on, with no credential in it: conformers pass what they
    /// quote (URLs, headers, a server's text) through ``LogRedaction/redactedText(_:)``.
    var message: String { get }
}

extension TransportError: ActionableError {}

/// The error a request handle's failure handlers receive: the underlying error, and a
/// message for a person.
public struct RequestFailure: Error, Sendable, CustomStringConvertible {
    /// The error the request failed with.
    public let underlying: any Error

    /// Wraps an error.
    public init(_ underlying: any Error) {
        self.underlying = underlying
    }

    /// The underlying error's ``ActionableError/message``, or its description, with
    /// credentials redacted (``LogRedaction/redactedText(_:)``) whatever the error's type.
    public var message: String {
        LogRedaction.redactedText((underlying as? any ActionableError)?.message ?? String(describing: underlying))
    }

    /// The underlying error when it is a ``TransportError``.
    public var transportError: TransportError? { underlying as? TransportError }

    /// The ``message``.
    public var description: String { message }
}
