import Foundation
public import Transport

/// A request queue: at most a given number of transfers in flight through it, the others
/// waiting their turn in the order they were sent.
///
/// One value is one queue: give the same ``ConcurrencyLimit`` to every transport that should
/// share the limit (copies share it too).
///
/// ```swift
/// let limit = try ConcurrencyLimit(maximumConcurrent: 3)
/// let transport = MiddlewareTransport(try CurlTransport(), middleware: [limit])
/// // 20 requests at once: 3 run, 17 wait, each starting as one ends.
/// ```
///
/// - A request holds its slot until its transfer is over. Through
///   ``/Transport/HTTPTransport/data(for:)`` that is when the body is in memory; through
///   ``/Transport/HTTPTransport/send(_:)`` the response comes back at its head, and the slot is
///   held while the body streams: until it ends, fails or is cancelled, or the body is
///   dropped unread (which also cancels its transfer, since nothing can read it any more).
/// - Waiting is first in, first out. A request whose task is cancelled while it waits leaves
///   the queue at once and fails with a `.cancelled` ``/Transport/TransportError``; it never
///   reaches the inner layers.
/// - Put it under ``InFlightSharing`` (in a ``/Transport/MiddlewareTransport`` that is its
///   base), so that a transfer many callers share takes one slot (in middleware around the
///   sharing, every caller would hold a slot while it waits), and inside `RetryMiddleware`
///   when each attempt should wait for a slot of its own (outside, a request keeps its slot
///   through its retries and their waits).
public struct ConcurrencyLimit: TransportMiddleware {
    /// The most transfers in flight through this queue at a time.
    public var maximumConcurrent: Int { slots.limit }
    private let slots: SlotQueue

    /// Creates a queue.
    ///
    /// - Parameter maximumConcurrent: The most transfers in flight at a time; 1 or more.
    /// - Throws: ``CoordinationError`` of category `.invalidLimit` for a limit below one.
    public init(maximumConcurrent: Int) throws(CoordinationError) {
        guard maximumConcurrent >= 1 else {
            throw CoordinationError.invalidLimit(maximumConcurrent, of: "ConcurrencyLimit")
        }
        slots = SlotQueue(limit: maximumConcurrent)
    }

    /// How many transfers are in flight through the queue now.
    public var inFlight: Int { slots.held }

    /// How many requests wait for a slot now.
    public var waiting: Int { slots.waiting }

    /// Waits for a slot, then sends the request through the inner layers.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        try await slots.acquire(url: request.url)
        let release = SlotRelease(slots)
        var response: TransportResponse
        do {
            response = try await next(request)
        } catch {
            release()
            throw error
        }
        guard response.body.collectedData == nil else {
            release()
            return response
        }
        response.body = ResponseBody(stream: SlotHoldingStream(response.body, release: release))
        return response
    }
}

/// A streaming body that gives its slot back when it ends, fails, is cancelled, or is dropped.
private final class SlotHoldingStream: ResponseBodyStream {
    private let body: ResponseBody
    private let release: SlotRelease

    init(_ body: ResponseBody, release: SlotRelease) {
        self.body = body
        self.release = release
    }

    func next() async throws -> Data? {
        // Every iterator of a streaming body continues the same single pass, so a fresh one
        // per chunk reads on from where the last stopped.
        var iterator = body.makeAsyncIterator()
        do {
            let chunk = try await iterator.next()
            if chunk == nil { release() }
            return chunk
        } catch {
            release()
            throw error
        }
    }

    func cancel() {
        body.cancel()
        release()
    }

    deinit {
        // Dropped: nothing can read the body any more, so its transfer is stopped too.
        body.cancel()
        release()
    }
}
