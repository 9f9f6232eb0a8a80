public import Foundation
public import HTTPTypes
public import Mapping
public import Transport

/// Applies a credential to requests, recognises when the server says it expired, and renews
/// it: what ``AuthenticationMiddleware`` needs to know about a login scheme.
///
/// ```swift
/// struct BearerAuthenticator: Authenticator {
///     let session: LoginSession
///     var expiredCodes: Set<BusinessCode> { [401] }   // the envelope's "token expired"
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

    /// Envelope codes that mean the credential expired (such as `401` in an envelope sent
    /// with HTTP 200): none by default.
    var expiredCodes: Set<BusinessCode> { get }
    /// How an envelope is read for ``expiredCodes``: `StandardEnvelope()` by default.
    var envelope: any EnvelopeFormat { get }

    /// Puts the credential on a request (a header, a query item).
    ///
    /// - Throws: When the credential cannot be put on the request (an invalid header value).
    func apply(_ credential: Credential, to request: inout TransportRequest) throws

    /// Whether a response says the credential it carried has expired: HTTP 401, or an
    /// envelope whose code is one of ``expiredCodes``, by default.
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
    public var expiredCodes: Set<BusinessCode> { [] }
    /// `StandardEnvelope()`.
    public var envelope: any EnvelopeFormat { StandardEnvelope() }

    /// HTTP 401, or an envelope whose code is one of ``expiredCodes``.
    public func isExpired(head: HTTPResponse, body: Data?) -> Bool {
        if head.status.code == 401 { return true }
        guard !expiredCodes.isEmpty, (200..<300).contains(head.status.code), let body else { return false }
        do {
            try ResponseDecoder(envelope: SilentEnvelope(format: envelope)).success(from: body)
        } catch let error as BusinessError {
            return expiredCodes.contains(error.code)
        } catch {
            return false
        }
        return false
    }
}

/// An envelope format that reads codes as another does, without routing them.
struct SilentEnvelope: EnvelopeFormat {
    let format: any EnvelopeFormat
    var codePath: JSONKeyPath { format.codePath }
    var messagePath: JSONKeyPath { format.messagePath }
    var dataPath: JSONKeyPath { format.dataPath }
    var successCodes: Set<BusinessCode> { format.successCodes }
    func isSuccess(_ code: BusinessCode) -> Bool { format.isSuccess(code) }
    func route(_ error: BusinessError) {}
}
