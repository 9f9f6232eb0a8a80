/// What a request ends with when a plugin or a middleware stopped it on purpose: the
/// founding design's "should stop processing", distinct from a failure.
///
/// Throw it from a `TransportMiddleware`'s `intercept(_:next:)`, or from a Forms plugin's
/// `prepare` or `process` hook, to end the request there without calling anybody back:
///
/// ```swift
/// struct MaintenancePage: TransportMiddleware {
///     func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
///         let response = try await next(request)
///         if response.head.status.code == 503 { throw RequestStop(by: "MaintenancePage", reason: "shown") }
///         return response
///     }
/// }
/// ```
///
/// A stopped run of a ``RequestHandle``:
///
/// - runs no ``RequestHandle/success(_:)``, ``RequestHandle/failure(_:)`` or
///   ``RequestHandle/completion(_:)`` handler (of the handle or of any view of it): the code
///   that stopped it has dealt with the answer;
/// - runs the ``RequestHandle/onStop(_:)`` hooks, which is how presenters take a loading
///   mask down without showing a warning;
/// - throws this value to ``RequestHandle/value`` and returns it as the failure of
///   ``RequestHandle/result``, so that an `await` never hangs and can tell a stop (`catch
///   let stop as RequestStop`) from a failure;
/// - completes ``RequestHandle/events`` with `.completed(succeeded: false)`;
/// - is never retried: retry policies retry `TransportError`s and statuses only.
///
/// A call that returns the response itself (Forms' `data(for:)`) throws it, as it has no
/// handlers to leave out.
public struct RequestStop: Error, Hashable, Sendable, CustomStringConvertible, ActionableError {
    /// Who stopped the request: a plugin's or a middleware's name.
    public let stoppedBy: String
    /// Why, in a few words; empty when not said.
    public let reason: String

    /// A stop by `stoppedBy`.
    ///
    /// - Parameters:
    ///   - stoppedBy: The name of the plugin or middleware that stops the request.
    ///   - reason: Why, in a few words; none by default.
    public init(by stoppedBy: String, reason: String = "") {
        self.stoppedBy = stoppedBy
        self.reason = reason
    }

    /// "The request was stopped on purpose by …": a stop is no failure, and nothing is to be
    /// done about it.
    public var message: String {
        "The request was stopped on purpose by \(stoppedBy)" + (reason.isEmpty ? "." : ": \(reason).")
    }

    /// The ``message``.
    public var description: String { message }

    /// Whether `error` is a stop.
    static func isStop(_ result: Result<any Sendable, any Error>) -> Bool {
        if case .failure(let error) = result { return error is RequestStop }
        return false
    }
}
