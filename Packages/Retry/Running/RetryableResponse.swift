public import Foundation
public import HTTPTypes
public import Transport

/// A response a ``RetryLoop`` can judge and, when it retries, let go of.
public protocol RetryableResponse: Sendable {
    /// The status and headers.
    var head: HTTPResponse { get }
    /// The status alone: what a retry decides on first, without building the head's fields
    /// where a response keeps them unbuilt. `head.status` by default.
    var status: HTTPResponse.Status { get }
    /// The URL that answered.
    var url: String { get }
    /// The body when it is already in memory, for envelope codes; `nil` for a streamed body.
    var bodyInMemory: Data? { get }
    /// Releases the response when a retry replaces it (cancels a streamed body).
    func discard()
    /// Keeps what the retry policy's classifier read in the body, so that it goes on with the
    /// response; does nothing by default.
    ///
    /// - Parameter classification: What the classifier read.
    mutating func keep(_ classification: ResponseClassification)
}

extension RetryableResponse {
    /// The head's status.
    public var status: HTTPResponse.Status { head.status }

    /// Does nothing: the response has nowhere to keep it.
    ///
    /// - Parameter classification: What the classifier read.
    public mutating func keep(_ classification: ResponseClassification) {}
}

extension DataResponse: RetryableResponse {
    /// The body.
    public var bodyInMemory: Data? { body }
    /// Does nothing: the body is in memory.
    public func discard() {}
    /// Stores it as the response's `classification`, where a decoder finds it.
    ///
    /// - Parameter classification: What the classifier read.
    public mutating func keep(_ classification: ResponseClassification) {
        self.classification = classification
    }
}

extension TransportResponse: RetryableResponse {
    /// The body when a collecting transport delivered it whole.
    public var bodyInMemory: Data? { body.collectedData }
    /// Cancels the body.
    public func discard() { body.cancel() }
    /// Stores it as the response's `classification`, which goes on to the `DataResponse` that
    /// `data(for:)` returns.
    ///
    /// - Parameter classification: What the classifier read.
    public mutating func keep(_ classification: ResponseClassification) {
        self.classification = classification
    }
}
