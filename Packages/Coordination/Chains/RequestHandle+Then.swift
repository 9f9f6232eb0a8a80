public import Transport

extension RequestHandle {
    /// A chain: once this request succeeds, `makeNext` builds the next one from its value,
    /// and the chain's handle ends as that one does.
    ///
    /// ```swift
    /// let profile = api.logIn(user, password)            // RequestHandle<Token>
    ///     .then { token in api.profile(token: token) }  // RequestHandle<Profile>
    ///     .then { profile in api.avatar(of: profile) }   // RequestHandle<Avatar>
    /// let avatar = try await profile.value
    /// ```
    ///
    /// The steps run one after the other, each built only once the one before has succeeded:
    ///
    /// - When a step fails, the chain fails with that step's error, as it is, and no later
    ///   step is built or started. An error `makeNext` throws fails the chain the same way.
    /// - Cancelling the chain cancels the step in flight (awaiting a handle cancels it when
    ///   the awaiting is cancelled, so a first step that other code also awaits is cancelled
    ///   for it too) and no later step starts; the chain fails with a `.cancelled`
    ///   ``/Transport/TransportError``. A step `makeNext` returns after the chain was
    ///   cancelled is cancelled at once.
    /// - The chain's events are the steps' events (progress, redirects, retries), each step's
    ///   while it runs; its response is the last step's.
    /// - The chain starts when this handle does: a chain of a handle made with
    ///   `startImmediately: false` waits, and ``/Transport/RequestHandle/start()`` on either
    ///   starts both.
    /// - `reload()` on the chain runs it again from the start: this handle is reloaded and
    ///   `makeNext` builds the next step anew from its new value.
    ///
    /// - Parameter makeNext: Builds the next step's handle from this one's value; it may start
    ///   it or not (the chain starts it).
    /// - Returns: The chain's handle, with the next step's value.
    public func then<NewValue: Sendable>(
        _ makeNext: @escaping @Sendable (Value) async throws -> RequestHandle<NewValue>
    ) -> RequestHandle<NewValue> {
        let runs = PThreadMutex(0)
        let relay = EventRelay()
        // Registered once: this handle's events reach whichever run of the chain awaits it.
        observe { event in relay.send(event) }
        let chain = RequestHandle<NewValue>(startImmediately: startsImmediately) { [self] events in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            relay.attach(events)
            let first = run == 1 ? start() : reload()
            let value: Value
            do {
                value = try await first.value
                relay.detach()
            } catch {
                relay.detach()
                throw error
            }
            try Task.checkCancellation()
            let step = try await makeNext(value)
            guard !Task.isCancelled else {
                step.cancel()
                throw CancellationError()
            }
            let stepEvents = EventRelay()
            stepEvents.attach(events)
            step.observe { event in stepEvents.send(event) }
            let result = await step.start().result
            stepEvents.detach()
            let response = await step.response
            return .init(value: try result.get(), response: response)
        }
        if !startsImmediately {
            // Starting this handle starts the chain; weakly, since the chain keeps this handle.
            onStart { [weak chain] in chain?.start() }
        }
        return chain
    }
}

/// Passes a handle's events to the run of a chain that currently waits for it, and to
/// nothing between runs.
private final class EventRelay: Sendable {
    private let sink = PThreadMutex<RequestEventSink?>(nil)

    func attach(_ events: RequestEventSink) {
        sink.withLock { $0 = events }
    }

    func detach() {
        sink.withLock { $0 = nil }
    }

    func send(_ event: RequestEvent) {
        sink.withLock { $0 }?.send(event)
    }
}
