import HTTPTypes
public import Transport

/// A `text/event-stream` response as an asynchronous sequence of ``ServerSentEvent``s, which
/// reconnects when the stream ends or the connection drops, as a browser's `EventSource` does.
///
/// Each connection sends the request with `Accept: text/event-stream`, and `Last-Event-ID`
/// once the server has named an event; its body is read through an ``EventStreamParser``. When
/// the body ends or fails, the stream waits the reconnection time (the server's last `retry`
/// field, else ``Options/defaultReconnectionTime``, plus the retry policy's backoff after
/// failures in a row), and connects again, under ``Options/retry`` and its budget: the
/// Retry module's ``/Retry/RetrySession`` decides, counting failures in a row as downloads do.
///
/// ```swift
/// let request = try TransportRequest(method: .get, url: "https://example.com/prices")
/// for try await event in EventStream(request: request, transport: transport) {
///     print(event.type, event.data)
/// }
/// ```
///
/// - A `204 No Content` ends the sequence: the server's way to say "do not reconnect".
/// - An answer that is not a `200` `text/event-stream` ends it with a
///   ``/Transport/TransportError`` of category `eventStreamFailed`, unless the policy retries
///   its status (a `503`, with its `Retry-After`).
/// - When the policy stops reconnecting, the sequence throws the last failure as the retry
///   session words it (`retryBudgetExhausted` when the budget stopped it).
/// - Cancelling the consuming task, or dropping the iterator (leaving a `for` loop), cancels the
///   transfer; the sequence then throws a `cancelled` error.
///
/// Memory stays bounded whatever the consumer's pace: the stream reads the next chunk of the
/// body only once the events of the last one are consumed, and the transport's streamed body
/// holds back the server once its buffer is full (`CurlTransport`'s `streamBufferSize`).
///
/// A connection is one transfer: its `stallTimeout` (30 seconds by default) fails a stream
/// on which the server sends nothing, not even a comment, for that long, and the stream
/// reconnects. Raise it on the request for a server that is quiet for longer.
public struct EventStream: AsyncSequence, Sendable {
    /// The events.
    public typealias Element = ServerSentEvent

    /// The request each connection sends (a `GET`, usually).
    public var request: TransportRequest
    /// The transport the connections go through.
    public var transport: any HTTPTransport
    /// Reconnections and reporting.
    public var options: Options

    /// Creates a stream; nothing is sent until it is iterated.
    ///
    /// - Parameters:
    ///   - request: The request each connection sends; `Accept: text/event-stream` is added
    ///     when it has no `Accept`, and `Cache-Control: no-cache` when it has no
    ///     `Cache-Control`.
    ///   - transport: The transport, such as `CurlTransport`.
    ///   - options: Reconnections and reporting: ``Options/init(retry:defaultReconnectionTime:lastEventID:maximumEventSize:reconnectionHandler:)``
    ///     by default.
    public init(request: TransportRequest, transport: any HTTPTransport, options: Options = Options()) {
        self.request = request
        self.transport = transport
        self.options = options
    }

    /// Creates a stream of a `GET` to `url`.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - transport: The transport.
    ///   - options: Reconnections and reporting.
    /// - Throws: ``/Transport/TransportError`` of category `invalidURL` for a malformed URL.
    public init(url: String, transport: any HTTPTransport, options: Options = Options()) throws {
        self.init(request: try TransportRequest(method: .get, url: url), transport: transport, options: options)
    }

    /// Starts reading: the first connection is made by the first call to `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: EventStreamReader(request: request, transport: transport, options: options))
    }

    /// Reads the events of one run of the stream.
    ///
    /// Dropping it before the end cancels the transfer in progress.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let reader: EventStreamReader

        init(reader: EventStreamReader) {
            self.reader = reader
        }

        /// The next event, reconnecting as needed.
        ///
        /// - Returns: The next event; `nil` once the server answered `204`, or the policy does
        ///   not reconnect after a stream that ended cleanly (``/Retry/RetryPolicy/never``, or a
        ///   request that is not idempotent).
        /// - Throws: ``/Transport/TransportError``: `eventStreamFailed` for an answer that is not
        ///   an event stream, `cancelled`, `responseTooLarge` for an event past
        ///   ``Options/maximumEventSize``, or the failure that stands once the policy stops
        ///   reconnecting.
        public mutating func next() async throws -> ServerSentEvent? {
            try await reader.next()
        }
    }
}
