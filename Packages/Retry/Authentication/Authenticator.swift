public import Foundation
public import HTTPTypes
public import Transport

/// Applies a credential to requests, recognises when the server says it expired, and renews
/// it: what ``AuthenticationMiddleware`` needs to know about a login scheme.
///
/// ```swift
/// struct BearerAuthenticator: Authenticator {
///     let session: LoginSession
///     var classifier: (any ResponseClassifier)? {      // Mapping: the envelope's "token expired"
///         EnvelopeClassifier(expiredCodes: [401])
///     }
///     func apply(_ token: String, to request: inout TransportRequest) throws {
///         try request.setHeader("Authorization", "Bearer \(token)")
///     }
///     func refresh(_ token: String?) async throws -> String {
///         try await session.refresh(from: token)        // through a client without this middleware
///     }
/// }
/// ```
///
/// `refresh` must not send its request through the middleware it serves: a refresh that
/// meets an expired credential would wait for itself.
public protocol Authenticator: Sendable {
    /// The credential: a token, a pair of tokens, a signed session.
    associatedtype Credential: Sendable

    /// Reads the bodies of answers whose status is a success for a credential the server says
    /// has expired (such as code `401` in an envelope sent with HTTP 200, for Mapping's
    /// `EnvelopeClassifier(expiredCodes: [401])`): `nil`, reading none, by default.
    var classifier: (any ResponseClassifier)? { get }

    /// Puts the credential on a request (a header, a query item).
    ///
    /// - Throws: When the credential cannot be put on the request (an invalid header value).
    func apply(_ credential: Credential, to request: inout TransportRequest) throws

    /// Whether a response says the credential it carried has expired: HTTP 401, or a body the
    /// ``classifier`` calls ``/Transport/ResponseClassification/Verdict/credentialExpired``, by
    /// default.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body, when it is in memory.
    func isExpired(head: HTTPResponse, body: Data?) -> Bool

    /// A new credential, from the one that expired (`nil` when there was none yet: log in).
    ///
    /// - Throws: Whatever stops the refresh; every request waiting for it fails with it.
    func refresh(_ credential: Credential?) async throws -> Credential
}

extension Authenticator {
    /// None.
    public var classifier: (any ResponseClassifier)? { nil }

    /// HTTP 401, or a `2xx` answer whose body the ``classifier`` calls
    /// ``/Transport/ResponseClassification/Verdict/credentialExpired``.
    public func isExpired(head: HTTPResponse, body: Data?) -> Bool {
        if head.status.code == 401 { return true }
        guard let classifier, (200..<300).contains(head.status.code), let body else { return false }
        return classifier.classify(head, body: body)?.verdict == .credentialExpired
    }
}
