public import Foundation
public import HTTPTypes
public import Transport

/// Reads a response's envelope for what its code means to a client: the `ResponseClassifier`
/// that lets the Retry module retry a "server busy" code and renew a credential on a "token
/// expired" one, without knowing envelopes.
///
/// ```swift
/// client.retry.classifier = EnvelopeClassifier(retryableCodes: [5031])    // retried like a 503
///
/// struct Login: Authenticator {
///     var classifier: (any ResponseClassifier)? { EnvelopeClassifier(expiredCodes: [401]) }
///     // apply(_:to:) and refresh(_:)
/// }
/// ```
///
/// It reads the code and the message (and, for a failure code, the data) as a
/// ``ResponseDecoder`` with the same format and options would, without routing the code. What
/// it read goes on with the response (`DataResponse.classification`): a decoder of the same
/// format then checks the envelope from it, so that `success(from:)` and a failure envelope
/// need no second reading of the body. A body that is not an envelope of the format gets no
/// classification.
public struct EnvelopeClassifier: ResponseClassifier {
    /// The envelope's shape: ``StandardEnvelope`` by default.
    public var envelope: any EnvelopeFormat
    /// Failure codes that mean "try again", such as a "server busy" code: none by default.
    public var retryableCodes: Set<BusinessCode>
    /// Failure codes that mean the request's credential expired: none by default.
    public var expiredCodes: Set<BusinessCode>
    /// How JSON is read: ``DecodingOptions/default`` by default; a decoder reuses what this
    /// classifier read only when it reads keys the same way.
    public var options: DecodingOptions

    /// Creates a classifier.
    ///
    /// - Parameters:
    ///   - envelope: The envelope's shape; ``StandardEnvelope`` by default.
    ///   - retryableCodes: Failure codes a retry may get past; none by default.
    ///   - expiredCodes: Failure codes that mean the credential expired; none by default. A
    ///     code in both sets counts as expired.
    ///   - options: How JSON is read; ``DecodingOptions/default`` by default.
    public init(
        envelope: some EnvelopeFormat = StandardEnvelope(),
        retryableCodes: Set<BusinessCode> = [],
        expiredCodes: Set<BusinessCode> = [],
        options: DecodingOptions = .default
    ) {
        self.envelope = envelope
        self.retryableCodes = retryableCodes
        self.expiredCodes = expiredCodes
        self.options = options
    }

    /// The envelope's code, message and what the code means: a success code (by the format's
    /// ``EnvelopeFormat/isSuccess(_:)``) is a success, an expired or retryable code is that, and
    /// any other code a failure.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body.
    /// - Returns: The classification; `nil` when the body is not an envelope of the format.
    public func classify(_ head: HTTPResponse, body: Data) -> ResponseClassification? {
        var reading = EnvelopeReading(body: body, format: envelope, options: options)
        let verdict: ResponseClassification.Verdict
        do {
            reading.head = try EnvelopeReader(format: envelope).readHead(of: body, options: options)
            verdict = .success
        } catch let failure as EnvelopeFailure {
            reading.head = failure.head
            reading.failure = EnvelopeReading.Failure(data: failure.data)
            if expiredCodes.contains(failure.head.code) {
                verdict = .credentialExpired
            } else if retryableCodes.contains(failure.head.code) {
                verdict = .retryable
            } else {
                verdict = .failure
            }
        } catch {
            return nil
        }
        return ResponseClassification(
            verdict: verdict, code: reading.head.code.rawValue, message: reading.head.message, reading: reading)
    }
}
