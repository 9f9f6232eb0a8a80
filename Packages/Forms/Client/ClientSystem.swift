import Transport

/// The application's one client configuration, in the style of swift-log's `LoggingSystem`.
///
/// The composition root calls ``bootstrap(_:)`` once at start-up; every ``Requestable``
/// that does not supply its own configuration uses it. A request made before any bootstrap
/// fails with ``FormError`` of category `.notConfigured`; it never crashes. A second
/// bootstrap throws and changes nothing; a test runs its requests in
/// ``withConfiguration(_:isolation:operation:)`` instead.
public enum ClientSystem {
    private static let system = ProcessWideSystem<ClientConfiguration?>(name: "ClientSystem", default: nil)

    /// Installs the configuration, once for the process.
    ///
    /// - Parameter configuration: The configuration every request uses from now on.
    /// - Throws: ``/Transport/SystemBootstrapError`` when a configuration was installed already.
    public static func bootstrap(_ configuration: ClientConfiguration) throws {
        try system.bootstrap(configuration)
    }

    /// The configuration the calling task sees: its scoped one
    /// (``withConfiguration(_:isolation:operation:)``), else the installed one, else `nil`.
    public static var configuration: ClientConfiguration? {
        system.value
    }

    /// Runs `operation` with `configuration` as the client configuration of the calling task
    /// and the tasks it starts, whatever is installed.
    ///
    /// - Parameters:
    ///   - configuration: The configuration for the scope.
    ///   - isolation: The actor `operation` runs on: the caller's.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withConfiguration<R>(
        _ configuration: ClientConfiguration, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        try await system.withValue(configuration, operation: operation)
    }
}
