extension RequestHandle {
    /// A handle around `operation`, whose value is boxed as this handle's ``Value``; otherwise
    /// as ``init(startImmediately:userInfo:executor:taskExecutor:runsInAwaitingTask:operation:)``.
    package convenience init(
        startImmediately: Bool, userInfo: RequestUserInfo, executor: HandlerExecutor?,
        taskExecutor: (any TaskExecutor)?, runsInAwaitingTask: Bool, boxedOperation operation: some BoxedOperation
    ) {
        self.init(
            startImmediately: startImmediately, userInfo: userInfo, executor: executor,
            core: RequestCore(runsInAwaitingTask: runsInAwaitingTask, taskExecutor: taskExecutor, operation: operation))
    }
}

extension RequestHandle where Value == DataResponse {
    /// ``map(_:)`` for a transform whose value comes back boxed, making a handle of type
    /// `handle`: how Mapping makes a decoded handle on every request.
    ///
    /// ``map(_:)`` wraps its transform in a struct generic over both handles' values, and makes
    /// the new handle from its value type; called from another module, neither is specialised,
    /// and each looked up a type's metadata at run time, per request. This one's wrapper is not
    /// generic, and the new handle is made from `handle`, a metatype the caller has at hand
    /// (specialised, as Mapping's inlinable decoders are in the module that names the model).
    ///
    /// - Parameters:
    ///   - handle: The new handle's type; `transform` must return a value of its `Value`, which
    ///     the new handle unboxes with a forced cast.
    ///   - transform: Turns the response into the new value.
    @usableFromInline
    package func mapBoxed<NewValue: Sendable>(
        as handle: RequestHandle<NewValue>.Type,
        _ transform: @escaping @Sendable (DataResponse, ResponseInfo?) throws -> any Sendable
    ) -> RequestHandle<NewValue> {
        makeView(as: handle, through: BoxedResponseTransform(body: transform))
    }
}

/// A response handle's transform whose value comes back boxed (see
/// ``RequestHandle/mapBoxed(as:_:)``).
private struct BoxedResponseTransform: HandleView.Transform {
    let body: @Sendable (DataResponse, ResponseInfo?) throws -> any Sendable

    func apply(_ value: any Sendable, _ response: ResponseInfo?) throws -> any Sendable {
        try body(RequestHandle<DataResponse>.unbox(value), response)
    }
}
