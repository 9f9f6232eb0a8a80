public import Transport

extension TransportError.Category {
    // MARK: Event streams

    /// An event stream could not go on: the server answered with a status other than `200`
    /// that the retry policy does not retry (a `404`, a `401`), or with a `200` that is not a
    /// `text/event-stream`. The WHATWG rules stop reconnecting there: the message names the
    /// answer and what to check.
    public static let eventStreamFailed = TransportError.Category("eventStreamFailed")
}
