import Transport

/// The application's one client configuration, in the style of swift-log's `LoggingSystem`.
///
/// The composition root calls ``bootstrap(_:)`` once at start-up; every ``Requestable``
/// that does not supply its own configuration uses it. A request made before any bootstrap
/// fails with ``FormError/Category-swift.struct/notConfigured``; it never crashes.
public enum ClientSystem {
    private static let current = PThreadMutex<ClientConfiguration?>(nil)

    /// Installs the configuration; calling it again replaces the previous one (for tests).
    ///
    /// - Parameter configuration: The configuration every request uses from now on.
    public static func bootstrap(_ configuration: ClientConfiguration) {
        current.withLock { $0 = configuration }
    }

    /// The installed configuration, or `nil` before ``bootstrap(_:)``.
    public static var configuration: ClientConfiguration? {
        current.withLock { $0 }
    }
}
