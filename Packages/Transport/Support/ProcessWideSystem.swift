/// One value for the whole process, installed once at start-up by the composition root, in the
/// style of swift-log's `LoggingSystem`, with a scoped value for a task and its child tasks.
///
/// Parley's process-wide systems (`ClientSystem`, `FeedbackSystem`, `ReloadSystem`) are each
/// one of these. ``bootstrap(_:)`` installs the value once: a second call throws
/// ``SystemBootstrapError`` and changes nothing, so that no library and no late code path can
/// swap what the rest of the process relies on. Code that needs another value for a while,
/// such as a test, runs with ``withValue(_:isolation:operation:)``: the value holds for that
/// task, the child tasks it creates and the unstructured tasks they start (which inherit
/// task-local values), and for nothing else, so tests running side by side never see each
/// other's.
///
/// ```swift
/// try ClientSystem.bootstrap(configuration)            // once, at start-up
/// try await ClientSystem.withConfiguration(stub) {     // a test's own
///     try await screen.request(form).value
/// }
/// ```
public final class ProcessWideSystem<Value: Sendable>: Sendable {
    /// The system's name, for messages: `ClientSystem`.
    public let name: String
    /// The value until the bootstrap.
    private let fallback: Value
    /// The value installed by ``bootstrap(_:)``, `nil` before it.
    private let installed = PThreadMutex<Value?>(nil)
    /// The value of ``withValue(_:isolation:operation:)``, for the task that runs it and its
    /// children.
    private let scoped = TaskLocal<Value?>(wrappedValue: nil)

    /// A system named `name` whose value is `fallback` until the bootstrap.
    ///
    /// - Parameters:
    ///   - name: The system's name, for messages.
    ///   - fallback: The value before any bootstrap.
    public init(name: String, default fallback: Value) {
        self.name = name
        self.fallback = fallback
    }

    /// Installs `value` for the whole process.
    ///
    /// - Parameter value: The value every task without a scoped one sees from now on.
    /// - Throws: ``SystemBootstrapError`` when the system was bootstrapped already; the value
    ///   installed first stays.
    public func bootstrap(_ value: Value) throws {
        let installedNow = installed.withLock { current -> Bool in
            guard current == nil else { return false }
            current = value
            return true
        }
        guard installedNow else { throw SystemBootstrapError(system: name) }
    }

    /// Whether ``bootstrap(_:)`` has installed a value.
    public var isBootstrapped: Bool {
        installed.withLock { $0 != nil }
    }

    /// The value the calling task sees: its scoped value, else the installed one, else the
    /// default.
    public var value: Value {
        if let value = scoped.get() { return value }
        return installed.withLock { $0 } ?? fallback
    }

    /// Runs `operation` with `value` as the system's value for the calling task and its child
    /// tasks, whatever is installed.
    ///
    /// - Parameters:
    ///   - value: The value for the scope.
    ///   - isolation: The actor `operation` runs on: the caller's.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public func withValue<R>(
        _ value: Value, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
    ) async rethrows -> R {
        try await scoped.withValue(value, operation: operation)
    }

    /// Runs `operation` with `value` as the system's value for the calling task, synchronously.
    ///
    /// - Parameters:
    ///   - value: The value for the scope.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public func withValue<R>(_ value: Value, operation: () throws -> R) rethrows -> R {
        try scoped.withValue(value, operation: operation)
    }
}
