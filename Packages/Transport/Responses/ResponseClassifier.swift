public import Foundation
public import HTTPTypes

/// Reads what a response's body says about the outcome that its status does not: the result
/// code of a server's envelope, such as "server busy" or "token expired" in an answer sent
/// with HTTP 200.
///
/// The Retry module asks one to judge answers (a retry policy's `classifier`, an
/// authenticator's `classifier`) without knowing the body's format; Mapping's
/// `EnvelopeClassifier` reads envelopes. A classifier is asked once per response: the
/// ``ResponseClassification`` it returns travels with the ``DataResponse``
/// (``DataResponse/classification``), so that a decoder of the same format need not read the
/// envelope again.
///
/// ```swift
/// struct BusyFlag: ResponseClassifier {
///     func classify(_ head: HTTPResponse, body: Data) -> ResponseClassification? {
///         guard head.headerFields[HTTPField.Name("X-Busy")!] == "1" else { return nil }
///         return ResponseClassification(verdict: .retryable, code: "busy")
///     }
/// }
/// ```
public protocol ResponseClassifier: Sendable {
    /// What the body of a response says.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The whole body.
    /// - Returns: The classification, or `nil` when the body says nothing the classifier
    ///   knows (it is not an envelope of its format).
    func classify(_ head: HTTPResponse, body: Data) -> ResponseClassification?
}
