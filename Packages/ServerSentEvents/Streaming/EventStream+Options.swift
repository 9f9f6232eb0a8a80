public import Retry
public import Transport

extension EventStream {
    /// How a stream reconnects and what it reports.
    public struct Options: Sendable {
        /// The retry policy reconnections run under: ``/Retry/RetryPolicy`` with its defaults
        /// (three failures in a row, the shared budget) by default.
        ///
        /// Reconnections count failures in a row, as a download's resumptions do: a connection
        /// that delivered at least one event starts the count afresh and takes nothing from the
        /// host's ``/Retry/RetryBudget``, so a long-lived stream that the server ends now and
        /// then reconnects for as long as it lives; connections that fail before an event count,
        /// and draw on the budget, until the policy stops them. The policy's `Retry-After`,
        /// deadline and statuses apply as to any request. ``/Retry/RetryPolicy/never`` never
        /// reconnects: the stream then ends with its first connection.
        public var retry: RetryPolicy
        /// The wait before a reconnection until the server sets one with a `retry` field: 3
        /// seconds by default (the HTML standard leaves it to the client; browsers wait about as
        /// long).
        public var defaultReconnectionTime: Duration
        /// The last event ID the first connection sends as `Last-Event-ID`, such as one an
        /// earlier run stored; empty (none sent) by default.
        public var lastEventID: String
        /// The most bytes one event (its line being read and its data) may hold: 1 MiB by default.
        /// A larger one ends the stream with a `responseTooLarge` error.
        public var maximumEventSize: Int
        /// Called before each reconnection's wait, with the retry (its attempt number and wait)
        /// and the failure that ended the connection before; `nil` by default.
        public var reconnectionHandler: (@Sendable (_ retry: RetryEvent, _ failure: TransportError) -> Void)?

        /// Creates the default options.
        public init(
            retry: RetryPolicy = RetryPolicy(),
            defaultReconnectionTime: Duration = .seconds(3),
            lastEventID: String = "",
            maximumEventSize: Int = 1 << 20,
            reconnectionHandler: (@Sendable (_ retry: RetryEvent, _ failure: TransportError) -> Void)? = nil
        ) {
            self.retry = retry
            self.defaultReconnectionTime = defaultReconnectionTime
            self.lastEventID = lastEventID
            self.maximumEventSize = maximumEventSize
            self.reconnectionHandler = reconnectionHandler
        }
    }
}
