public import Downloads
public import Transport

/// A hook around every request a client sends, with do-nothing defaults.
///
/// In order: ``willSend(_:form:)`` may veto (the request is not sent and its handle fails
/// with a ``FormError`` naming the plugin), ``prepare(_:form:)`` adapts the request,
/// ``process(_:form:)`` may rewrite the response into a uniform shape before anything maps
/// it, ``didReceive(_:form:)`` observes it, and ``afterCompletion(_:form:)`` sees the final
/// result, success or failure.
///
/// A client's plugins compile into the outermost links of its interception chain (see
/// ``ClientConfiguration``), outside the retries: a plugin sees the logical request once and
/// the answer that stands. A concern that should run for every attempt is a
/// `TransportMiddleware` in ``ClientConfiguration/middleware`` instead.
///
/// A hook that has dealt with the answer itself (shown a page of its own, say) stops the
/// request instead of failing it by throwing a `RequestStop` from ``prepare(_:form:)`` or
/// ``process(_:form:)``: the later hooks on the way out run as for a failure
/// (``afterCompletion(_:form:)`` sees the stop), but the handle calls back no `success`,
/// `failure` or `completion` handler, only its `onStop` hooks; an `await` of it throws the
/// stop, and it is never retried. A veto in ``willSend(_:form:)`` is a failure, not a stop.
///
/// ```swift
/// struct MaintenancePlugin: Plugin {
///     func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
///         guard response.status.code == 503 else { return response }
///         showMaintenanceScreen()
///         throw RequestStop(by: name, reason: "the maintenance screen is shown")
///     }
/// }
/// ```
///
/// Downloads run ``willSend(_:form:)`` and ``prepare(_:form:)`` the same way; their body goes
/// to a file instead of memory, so in place of the three response hooks they end with
/// ``afterDownload(_:form:)``.
public protocol Plugin: Sendable {
    /// The plugin's name in error messages; the type's name by default.
    var name: String { get }
    /// Whether the request may be sent; `.proceed` by default.
    func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision
    /// Adapts the request before it is sent; by default it is left alone.
    func prepare(_ request: inout TransportRequest, form: any Formable) async throws
    /// Rewrites a response before mapping (response preprocessing); by default returns it as is.
    func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse
    /// Observes the response as the caller will get it; does nothing by default.
    func didReceive(_ response: DataResponse, form: any Formable) async
    /// Observes the final result; does nothing by default.
    func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async
    /// Observes the final result of a download; does nothing by default.
    func afterDownload(_ result: Result<FileDownload.Summary, any Error>, form: any Formable) async
}

/// A plugin's verdict on sending a request.
public enum PluginDecision: Sendable, Equatable {
    /// Send it.
    case proceed
    /// Do not send it; `reason` says why.
    case veto(reason: String)
}

extension Plugin {
    /// The type's name.
    public var name: String { String(describing: type(of: self)) }
    /// `.proceed`.
    public func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision { .proceed }
    /// Leaves the request alone.
    public func prepare(_ request: inout TransportRequest, form: any Formable) async throws {}
    /// Returns the response as is.
    public func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse { response }
    /// Does nothing.
    public func didReceive(_ response: DataResponse, form: any Formable) async {}
    /// Does nothing.
    public func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {}
    /// Does nothing.
    public func afterDownload(_ result: Result<FileDownload.Summary, any Error>, form: any Formable) async {}
}
