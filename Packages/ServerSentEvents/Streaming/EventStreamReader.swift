import Foundation
import HTTPTypes
import Retry
import Transport

/// One run of an ``EventStream``: its connections, the parser they share, and the
/// ``/Retry/RetrySession`` that decides whether and when to reconnect.
///
/// The reader drives the session as a download drives it, counting failures in a row: a
/// connection that ends (cleanly or not) is an attempt that failed, having made progress when it
/// delivered an event; a `204` finishes; an answer that is not an event stream stops at once.
/// What it performs for the session's actions: `send` connects, `wait` waits the reconnection
/// time plus the session's delay, `stop` throws the conclusion's error (or ends the sequence
/// when a clean end was not reconnected by the policy's rules rather than its limits).
final class EventStreamReader {
    private let request: TransportRequest
    private let transport: any HTTPTransport
    private let options: EventStream.Options
    private let retryRequest: RetryRequest
    private var parser: EventStreamParser
    private var session: RetrySession
    /// What to do next once the body in hand is read; `nil` before the first connection.
    private var action: RetrySession.Action?
    /// The body of the connection being read.
    private var body: ResponseBody?
    private var bodyIterator: ResponseBody.AsyncIterator?
    /// Events parsed and not yet returned, from ``pendingIndex`` on.
    private var pending: [ServerSentEvent] = []
    private var pendingIndex = 0
    /// Whether the connection being read delivered an event.
    private var delivered = false
    /// Whether the last connection ended with its body's clean end rather than a failure.
    private var endedCleanly = false
    /// The last failure, as it stands when the session stops.
    private var lastError: TransportError
    /// Whether the sequence is over.
    private var done = false

    init(request: TransportRequest, transport: any HTTPTransport, options: EventStream.Options) {
        var request = request
        if request.head.headerFields[.accept] == nil { request.head.headerFields[.accept] = "text/event-stream" }
        if request.head.headerFields[.cacheControl] == nil { request.head.headerFields[.cacheControl] = "no-cache" }
        self.request = request
        self.transport = transport
        self.options = options
        self.retryRequest = RetryRequest(request)
        self.parser = EventStreamParser(lastEventID: options.lastEventID, maximumEventSize: options.maximumEventSize)
        self.session = RetrySession(policy: options.retry, counting: .inARow)
        self.lastError = Self.cancelledError(url: request.url)
    }

    deinit {
        body?.cancel()
    }

    private var url: String { request.url }

    /// The next event, connecting and reconnecting as the session says.
    func next() async throws -> ServerSentEvent? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            if done { return nil }
            if bodyIterator != nil {
                try await read()
                continue
            }
            let clock = options.retry.clock
            switch action {
            case nil:
                action = session.receive(.started(at: clock.now))
            case .send(let remaining)?:
                try await connect(remaining: remaining)
            case .wait(let delay, let retry)?:
                // The server's reconnection time, and on top of it the policy's backoff (zero
                // to its ceiling) after a failure; a `Retry-After` the server sent is the wait.
                let wait =
                    retry.serverAsked ? delay : (parser.reconnectionTime ?? options.defaultReconnectionTime) + delay
                var report = retry
                report.delay = wait
                options.reconnectionHandler?(report, lastError)
                do {
                    try await clock.sleep(for: wait)
                } catch {
                    throw stopped(Self.cancelledError(url: url))
                }
                action = session.receive(.waited(at: clock.now))
            case .offerReload(_, let otherwise)?:
                action = .stop(otherwise)
            case .stop(let conclusion)?:
                done = true
                switch conclusion.stop {
                case .final:
                    throw lastError
                case .notRetryable where endedCleanly, .retriesSpent(retries: 0) where endedCleanly:
                    // A clean end the policy does not reconnect after by its rules (a request
                    // that is not idempotent, a policy without retries): the stream is over.
                    return nil
                default:
                    throw conclusion.error(standingFor: lastError, answer: conclusion.failure.head.map(answered))
                }
            case .finish?:
                done = true
                return nil
            }
        }
    }

    // MARK: - Steps

    /// Sends a connection's request and takes its answer.
    private func connect(remaining: Duration?) async throws {
        if Task.isCancelled { throw stopped(Self.cancelledError(url: url)) }
        var attempt = request.cappingDeadline(to: remaining)
        let lastEventID = parser.lastEventID
        attempt.head.headerFields[Self.lastEventIDField] = lastEventID.isEmpty ? nil : lastEventID
        let response: TransportResponse
        do {
            response = try await transport.send(attempt)
        } catch let error as TransportError {
            try failed(.transport(error), error: error, madeProgress: false)
            return
        } catch is CancellationError {
            throw stopped(Self.cancelledError(url: url))
        }
        let head = response.head
        switch head.status.code {
        case 200:
            guard Self.isEventStream(head) else {
                response.body.cancel()
                let type = head.headerFields[.contentType].map { "'\($0)'" } ?? "no Content-Type"
                throw stopped(
                    TransportError(
                        .eventStreamFailed,
                        message: "The server at \(url) answered 200 with \(type), not text/event-stream, so the "
                            + "event stream stops there. Check that the URL is the server's event stream.",
                        url: url))
            }
            // The host answers: give back to the budget what failed connections took.
            if options.retry.budget?.hasDepletedHosts ?? false { options.retry.recordSuccess(of: retryRequest) }
            body = response.body
            bodyIterator = response.body.makeAsyncIterator()
            delivered = false
        case 204:
            response.body.cancel()
            _ = session.receive(.attemptSucceeded(of: retryRequest))
            done = true
        case let code where options.retry.retryableStatuses.contains(code):
            response.body.cancel()
            let error = TransportError(
                .eventStreamFailed, message: "\(answered(head)) The server is failing or overloaded; try again later.",
                url: url)
            try failed(.status(head, url: url), error: error, madeProgress: false)
        default:
            response.body.cancel()
            throw stopped(
                TransportError(
                    .eventStreamFailed,
                    message: "\(answered(head)) An event stream needs 200 with text/event-stream (or 204 to stop), "
                        + "so it stops there. Check the URL and the credentials the request carries.",
                    url: url))
        }
    }

    /// Reads the next chunk of the body and parses it; at the body's end or failure, tells the
    /// session that the connection ended.
    private func read() async throws {
        guard var iterator = bodyIterator else { return }
        let chunk: Data?
        do {
            chunk = try await iterator.next()
            bodyIterator = iterator
        } catch {
            closeConnection()
            let transportError =
                error as? TransportError
                ?? TransportError(.other, message: "The event stream from \(url) failed: \(error).", url: url)
            if Task.isCancelled || transportError.category == .cancelled {
                throw stopped(Self.cancelledError(url: url))
            }
            try failed(.transport(transportError), error: transportError, madeProgress: delivered)
            return
        }
        guard let chunk else {
            closeConnection()
            let error = TransportError(
                .incompleteBody, message: "The server at \(url) ended the event stream.", url: url)
            try failed(.transport(error), error: error, madeProgress: delivered, cleanly: true)
            return
        }
        do {
            pending = try parser.parse(chunk)
            pendingIndex = 0
        } catch var error as TransportError {
            error.url = url
            throw stopped(error)
        }
        if !pending.isEmpty { delivered = true }
    }

    /// Tells the session that a connection failed (or ended), keeping the failure for the end.
    private func failed(_ failure: RetryFailure, error: TransportError, madeProgress: Bool, cleanly: Bool = false)
        throws
    {
        if case .transport(let transportError) = failure, transportError.category == .cancelled || Task.isCancelled {
            throw stopped(Self.cancelledError(url: url))
        }
        lastError = error
        endedCleanly = cleanly
        action = session.receive(
            .attemptFailed(failure, of: retryRequest, madeProgress: madeProgress, at: options.retry.clock.now))
    }

    /// Ends the connection being read: the transfer is cancelled when still running, and an
    /// event not yet complete is discarded.
    private func closeConnection() {
        body?.cancel()
        body = nil
        bodyIterator = nil
        parser.finish()
    }

    /// Ends the sequence with `error`, cancelling the transfer in progress.
    private func stopped(_ error: TransportError) -> TransportError {
        done = true
        closeConnection()
        return error
    }

    // MARK: - Helpers

    // swift-format-ignore: NeverForceUnwrap
    /// `Last-Event-ID`, a valid field name.
    static let lastEventIDField = HTTPField.Name("Last-Event-ID")!

    /// Whether the answer's media type is `text/event-stream`, parameters aside.
    private static func isEventStream(_ head: HTTPResponse) -> Bool {
        guard let value = head.headerFields[.contentType] else { return false }
        let type = value.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// `The server at URL answered 404 Not Found to the event stream.`
    private func answered(_ head: HTTPResponse) -> String {
        let reason = head.status.reasonPhrase
        let status = reason.isEmpty ? "\(head.status.code)" : "\(head.status.code) \(reason)"
        return "The server at \(url) answered \(status) to the event stream."
    }

    static func cancelledError(url: String) -> TransportError {
        TransportError(.cancelled, message: "The event stream from \(url) was cancelled by its consumer.", url: url)
    }
}
