public import Foundation
public import HTTPTypes

/// A response whose head has arrived and whose body may still be streaming.
public struct TransportResponse: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body: iterate it, or collect it.
    public var body: ResponseBody
    /// The URL that produced this response, after any redirects.
    public var url: String

    /// Creates a response.
    public init(head: HTTPResponse, body: ResponseBody, url: String) {
        self.head = head
        self.body = body
        self.url = url
    }

    /// The status, for convenience.
    public var status: HTTPResponse.Status { head.status }
}

/// A response whose body has been collected in memory.
public struct DataResponse: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The whole body, decoded if the server compressed it.
    public var body: Data
    /// The URL that produced this response, after any redirects.
    public var url: String
    /// The transfer's timings and counters, when the transport measures them.
    public var metrics: TransferMetrics?
    /// What a ``ResponseClassifier`` read in the body, when one did (a retry policy's, which
    /// judges every answer it may retry): passed along with the response, so that a decoder of
    /// the same format uses it instead of reading the body again. `nil` otherwise.
    public var classification: ResponseClassification?

    /// Creates a response.
    public init(head: HTTPResponse, body: Data, url: String, metrics: TransferMetrics? = nil) {
        self.head = head
        self.body = body
        self.url = url
        self.metrics = metrics
    }

    /// The status, for convenience.
    public var status: HTTPResponse.Status { head.status }
}
