/// The work behind a handle as its core runs it: the value comes back boxed.
///
/// A protocol rather than a closure type. The public initialiser wraps a handle's typed
/// operation in a struct holding it, which fits an existential's inline buffer, where a
/// closure wrapping it would be a context on the heap, an allocation per request. A module of
/// the package that makes handles on every request (Forms) conforms a type of its own that is
/// not generic: the public initialiser's wrapper is generic over the handle's value and, made
/// from another module, looks up its type's metadata at run time, and its closure is one more
/// call and one more context per request.
package protocol BoxedOperation: Sendable {
    /// Runs the work, reporting its events to `events`; the value must be of the handle's
    /// `Value` type, which the handle unboxes with a forced cast.
    nonisolated(nonsending) func run(_ events: RequestEventSink) async throws
        -> (value: any Sendable, response: ResponseInfo?)
}
