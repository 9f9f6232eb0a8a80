public import Transport

/// The key of `RequestUserInfo.callConfiguration`.
private enum CallConfigurationKey: RequestUserInfoKey {
    typealias Value = ClientConfiguration
}

extension RequestUserInfo {
    /// The configuration a call runs with when its ``CallOptions/configure`` changed the
    /// client's; `nil` when the call runs with the client's (and its form's) as they are.
    ///
    /// A plugin reads it from the request in ``Plugin/willSend(_:form:)`` and
    /// ``Plugin/prepare(_:form:)``, and a middleware from the request it intercepts:
    ///
    /// ```swift
    /// struct RetryAudit: Plugin {
    ///     func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
    ///         if let call = request.userInfo.callConfiguration, call.retry.maximumRetries == 0 {
    ///             try request.setHeader("X-No-Retry", "1")
    ///         }
    ///     }
    /// }
    /// ```
    public var callConfiguration: ClientConfiguration? {
        get { self[CallConfigurationKey.self] }
        set { self[CallConfigurationKey.self] = newValue }
    }
}
