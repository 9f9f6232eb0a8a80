extension RequestHandle {
    /// A view of this handle, as ``map(_:)`` makes, whose transform also gets the value of
    /// the handle that made the request (the response a decoded handle was decoded from),
    /// when it is a `Source`; `nil` otherwise.
    ///
    /// The request's value is passed as it is held, not copied or computed again, and this
    /// handle's value is the one its own transform computed once for the outcome.
    ///
    /// - Parameters:
    ///   - sourceType: The type of the request's own value, such as `DataResponse`.
    ///   - transform: Turns this handle's value, the request's value and the response into
    ///     the new value; an error it throws fails the new handle.
    /// - Returns: The new handle.
    package func mapWithSource<Source: Sendable, NewValue: Sendable>(
        _ sourceType: Source.Type,
        _ transform: @escaping @Sendable (Value, Source?, ResponseInfo?) throws -> NewValue
    ) -> RequestHandle<NewValue> {
        makeView(through: SourceTransform<Value, Source, NewValue>(body: transform))
    }
}

/// A view's transform that reads the request's own value too (see
/// ``RequestHandle/mapWithSource(_:_:)``).
private struct SourceTransform<Value: Sendable, Source: Sendable, NewValue: Sendable>: HandleView.Transform {
    let body: @Sendable (Value, Source?, ResponseInfo?) throws -> NewValue

    func apply(_ value: any Sendable, _ response: ResponseInfo?) throws -> any Sendable {
        try body(RequestHandle<Value>.unbox(value), nil, response)
    }

    func apply(_ value: any Sendable, request: RequestCore.Erased, _ response: ResponseInfo?) throws -> any Sendable {
        let source: Source?
        if case .success(let own) = request { source = own as? Source } else { source = nil }
        return try body(RequestHandle<Value>.unbox(value), source, response)
    }
}
