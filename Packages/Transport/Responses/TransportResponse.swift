public import Foundation
public import HTTPTypes

/// A response whose head has arrived and whose body may still be streaming: the one response
/// type that flows through the middleware onion.
///
/// On the collected path (``HTTPTransport/data(for:)``) the body is already in memory, and the
/// response also carries what a ``DataResponse`` carries beside its bytes (the transfer's
/// ``metrics``, a retry policy's ``classification``). A ``DataResponse`` is such a response,
/// seen with its body as `Data`, so ``init(_:)`` and ``DataResponse/init(collected:)`` pass a
/// response into the onion and out of it as it is: no part is copied or converted, and the body
/// is not collected again.
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
        self.init(lazyHead: LazyResponseHead(head), body: body, url: url)
    }

    /// A response with the head an engine received, built when first read.
    package init(receivedHead: ReceivedResponseHead, body: ResponseBody, url: String) {
        self.init(lazyHead: LazyResponseHead(received: receivedHead), body: body, url: url)
    }

    /// A response with a head as made or as received.
    fileprivate init(lazyHead: LazyResponseHead, body: ResponseBody, url: String) {
        self.lazyHead = lazyHead
        self.body = body
        self.url = url
    }

    /// The response `response` is: its body already in memory, with its metrics and
    /// classification. Nothing is copied or converted.
    ///
    /// - Parameter response: A collected response, such as ``HTTPTransport/data(for:)`` returns.
    public init(_ response: DataResponse) {
        self = response.response
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
        var collected = self
        collected.body = ResponseBody(try await body.collect(upTo: limit))
        return DataResponse(alreadyCollected: collected)
    }
}

/// A response whose body has been collected in memory.
///
/// It is a ``TransportResponse`` whose body is in memory, seen with its body as `Data`: the
/// middleware onion takes it in and hands it back (``TransportResponse/init(_:)``,
/// ``init(collected:)``) without copying or converting any of its parts.
public struct DataResponse: Sendable {
    /// The response, its body always collected.
    package private(set) var response: TransportResponse

    /// The status and header fields.
    ///
    /// A response from the engine keeps its header lines as received and builds this value
    /// the first time it is read (then keeps it); ``status`` does not build it.
    public var head: HTTPResponse {
        get { response.head }
        set { response.head = newValue }
    }
    /// The head, as made or as received.
    package var lazyHead: LazyResponseHead {
        get { response.lazyHead }
        set { response.lazyHead = newValue }
    }
    /// The whole body, decoded if the server compressed it.
    public var body: Data {
        // Always collected: each initialiser takes a collected body or collects one.
        get { response.body.collectedData ?? Data() }
        set { response.body = ResponseBody(newValue) }
        // Changed in place, as a stored `Data` is: the bytes leave the response while the caller
        // changes them, so that their buffer has one owner and is not copied.
        _modify {
            var data = response.body.collectedData ?? Data()
            response.body = ResponseBody()
            defer { response.body = ResponseBody(data) }
            yield &data
        }
    }
    /// The URL that produced this response, after any redirects.
    public var url: String {
        get { response.url }
        set { response.url = newValue }
    }
    /// The transfer's timings and counters, when the transport measures them.
    public var metrics: TransferMetrics? {
        get { response.metrics }
        set { response.metrics = newValue }
    }
    /// What a ``ResponseClassifier`` read in the body, when one did (a retry policy's, which
    /// judges every answer it may retry): passed along with the response, so that a decoder of
    /// the same format uses it instead of reading the body again. `nil` otherwise.
    public var classification: ResponseClassification? {
        get { response.classification }
        set { response.classification = newValue }
    }

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
        response = TransportResponse(lazyHead: lazyHead, body: ResponseBody(body), url: url)
        response.metrics = metrics
    }

    /// `response`, whose body ``TransportResponse/collected(upTo:)`` has just collected.
    fileprivate init(alreadyCollected response: TransportResponse) {
        assert(response.body.isCollected, "a DataResponse's body is in memory")
        self.response = response
    }

    /// The response `response` carries, when its body is already in memory; `nil` for a
    /// streamed body. Nothing is copied or collected.
    ///
    /// - Parameter response: A response from the middleware onion.
    public init?(collected response: TransportResponse) {
        guard response.body.isCollected else { return nil }
        self.response = response
    }

    /// The status, for convenience; reading it does not build ``head``.
    public var status: HTTPResponse.Status { response.status }
}
