/// What makes a handle a view of another: the transform from its source's value to its own,
/// and the transformed outcome it last computed.
///
/// A handle made by ``RequestHandle/map(_:)`` shares its source's ``RequestCore``; its handlers
/// and awaits are the core's, each with this view beside it, and the thread that hands an
/// outcome out applies the transform on their way. The transform runs once per outcome (the
/// first handler or await that needs it computes it, the others take it from here), and not
/// at all for an outcome nobody asks this view for.
///
/// `@unchecked Sendable`: ``cached`` is read and written only while an outcome is being handed
/// out, by the one thread doing it (the core's drainer; see ``RequestCoreMachine``). The core
/// passes that role from one thread to the next under its lock, so every access is ordered
/// with the one before by the lock's release and acquire, and two never overlap.
final class HandleView: @unchecked Sendable {
    /// Turns the source's value (and its response) into this view's value.
    ///
    /// A protocol rather than a closure type: the handle wraps its typed transform in a struct,
    /// which fits an existential's inline buffer, where a closure wrapping it would be a
    /// context on the heap.
    protocol Transform: Sendable {
        /// This view's value for the source's `value` and `response`.
        func apply(_ value: any Sendable, _ response: ResponseInfo?) throws -> any Sendable
        /// This view's value for the source's `value`, the request's own outcome `request` (the
        /// value of the handle that made the core), and `response`; the two-argument form by
        /// default, so that only a transform that reads the request's own value pays for it.
        func apply(_ value: any Sendable, request: RequestCore.Erased, _ response: ResponseInfo?) throws
            -> any Sendable
    }

    /// The view this one was made from; `nil` when made from the handle that owns the core.
    private let parent: HandleView?
    /// The transform.
    private let transform: any Transform
    /// The outcome computed last, and its number.
    private var cached: (number: Int, outcome: RequestCore.Erased)?

    /// A view applying `transform` to what `parent` gives (the core's own outcome without one).
    init(parent: HandleView?, transform: any Transform) {
        self.parent = parent
        self.transform = transform
    }

    /// This view's outcome for the core's outcome `source`, number `number`: computed the
    /// first time, then remembered until the next outcome. Only the thread handing outcomes
    /// out calls it.
    func outcome(of source: RequestCore.Erased, number: Int, response: ResponseInfo?) -> RequestCore.Erased {
        if let cached, cached.number == number { return cached.outcome }
        let base = parent?.outcome(of: source, number: number, response: response) ?? source
        let outcome: RequestCore.Erased
        switch base {
        case .success(let value):
            do {
                outcome = .success(try transform.apply(value, request: source, response))
            } catch {
                outcome = .failure(RequestCore.normalized(error))
            }
        case .failure(let error):
            outcome = .failure(error)
        }
        cached = (number, outcome)
        return outcome
    }
}

extension HandleView.Transform {
    /// The two-argument form: the request's own outcome is not needed.
    func apply(_ value: any Sendable, request: RequestCore.Erased, _ response: ResponseInfo?) throws
        -> any Sendable
    {
        try apply(value, response)
    }
}
