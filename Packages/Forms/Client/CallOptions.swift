public import Transport

/// What one call decides for itself, over its form and its client: for the same endpoint used
/// with different timeouts in different places, values for a presenter, or handlers on the
/// main actor.
///
/// ```swift
/// screen.request(WeatherForm.forecast(city: "Oslo"), options: CallOptions(timeout: .seconds(3)))
/// ```
public struct CallOptions: Sendable {
    /// The deadline of the whole request (each retry's attempt included); `nil` (the default)
    /// leaves it to the form, then the client.
    public var timeout: Duration?
    /// Values for the code around the request, merged over the client's
    /// ``ClientConfiguration/userInfo`` (the call's win): the request's
    /// `TransportRequest.userInfo` and the handle's `userInfo` carry them.
    public var userInfo: RequestUserInfo
    /// Where the handle's handlers run; `nil` (the default) leaves it to the client's
    /// ``ClientConfiguration/handlerExecutor``.
    public var executor: HandlerExecutor?

    /// Creates options; every one left out is decided by the form or the client.
    ///
    /// - Parameters:
    ///   - timeout: The deadline of the whole request.
    ///   - userInfo: Values for the code around the request.
    ///   - executor: Where the handle's handlers run.
    public init(
        timeout: Duration? = nil, userInfo: RequestUserInfo = RequestUserInfo(), executor: HandlerExecutor? = nil
    ) {
        self.timeout = timeout
        self.userInfo = userInfo
        self.executor = executor
    }
}
