public import Foundation
public import HTTPTypes

/// A response whose head has arrived and whose body may still be streaming: the one response
/// type that flows through the middleware onion.
///
/// On the collected path (``HTTPTransport/data(for:)``) the body is already in memory, and the
/// response also carries what a ``DataResponse`` carries beside its bytes (the transfer's
/// ``metrics``, a retry policy's ``classification``), so that ``init(_:)`` and
/// ``DataResponse/init(collected:)`` move a response into the onion and out of it without
/// copying or collecting the body again.
public struct TransportResponse: Sendable {
    /// The status and header fields.
    ///
    /// A response from the engine keeps its header lines as received and builds this value
    /// the first time it is read (then keeps it); ``status`` does not build it.
    public var head: HTTPResponse {
        get { lazyHead.response }
        set { lazyHead.response = newValue }
    }
    /// The head, as made or as received.
    package var lazyHead: LazyResponseHead
    /// The body: iterate it, or collect it.
    public var body: ResponseBody
    /// The URL that produced this response, after any redirects.
    public var url: String
    /// The transfer's timings and counters, when the transport measured them and delivered the
    /// body collected; `nil` for a streamed body, whose metrics arrive as a
    /// ``TransferEvent/metrics(_:)`` event when it ends.
    public var metrics: TransferMetrics?
    /// What a ``ResponseClassifier`` read in a collected body, when one did; `nil` otherwise.
    /// See ``DataResponse/classification``.
    public var classification: ResponseClassification?

    /// Creates a response.
    public init(head: HTTPResponse, body: ResponseBody, url: String) {
        self.lazyHead = LazyResponseHead(head)
        self.body = body
        self.url = url
    }

    /// A response with the head an engine received, built when first read.
    package init(receivedHead: ReceivedResponseHead, body: ResponseBody, url: String) {
        self.lazyHead = LazyResponseHead(received: receivedHead)
        self.body = body
        self.url = url
    }

    /// A response whose body is `response`'s bytes, already collected, with its metrics and
    /// classification: nothing is copied.
    ///
    /// - Parameter response: A collected response, such as ``HTTPTransport/data(for:)`` returns.
    public init(_ response: DataResponse) {
        lazyHead = response.lazyHead
        body = ResponseBody(response.body)
        url = response.url
        metrics = response.metrics
        classification = response.classification
    }

    /// The status, for convenience; reading it does not build ``head``.
    public var status: HTTPResponse.Status { lazyHead.status }

    /// The response as a ``DataResponse``: a body already in memory is taken as it is (it
    /// passed the limit of the transport that collected it), a streamed one is collected now.
    ///
    /// - Parameter limit: The most bytes to accept from a streamed body.
    /// - Returns: The collected response, with the metrics and classification this one carries.
    /// - Throws: ``TransportError`` with category ``ErrorCategory/responseTooLarge``
    ///   when a streamed body exceeds `limit`, or any error of its transfer.
    public func collected(upTo limit: Int) async throws -> DataResponse {
        if let collected = DataResponse(collected: self) { return collected }
        var collected = DataResponse(
            lazyHead: lazyHead, body: try await body.collect(upTo: limit), url: url, metrics: metrics)
        collected.classification = classification
        return collected
    }
}

/// A response whose body has been collected in memory.
public struct DataResponse: Sendable {
    /// The status and header fields.
    ///
    /// A response from the engine keeps its header lines as received and builds this value
    /// the first time it is read (then keeps it); ``status`` does not build it.
    public var head: HTTPResponse {
        get { lazyHead.response }
        set { lazyHead.response = newValue }
    }
    /// The head, as made or as received.
    package var lazyHead: LazyResponseHead
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
        self.init(lazyHead: LazyResponseHead(head), body: body, url: url, metrics: metrics)
    }

    /// A response with the head an engine received, built when first read.
    package init(receivedHead: ReceivedResponseHead, body: Data, url: String, metrics: TransferMetrics? = nil) {
        self.init(lazyHead: LazyResponseHead(received: receivedHead), body: body, url: url, metrics: metrics)
    }

    /// A response with a head as made or as received.
    package init(lazyHead: LazyResponseHead, body: Data, url: String, metrics: TransferMetrics?) {
        self.lazyHead = lazyHead
        self.body = body
        self.url = url
        self.metrics = metrics
    }

    /// The response `response` carries, when its body is already in memory; `nil` for a
    /// streamed body. Nothing is copied or collected.
    ///
    /// - Parameter response: A response from the middleware onion.
    public init?(collected response: TransportResponse) {
        guard let body = response.body.collectedData else { return nil }
        self.init(lazyHead: response.lazyHead, body: body, url: response.url, metrics: response.metrics)
        classification = response.classification
    }

    /// The status, for convenience; reading it does not build ``head``.
    public var status: HTTPResponse.Status { lazyHead.status }
}
