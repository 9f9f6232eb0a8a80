/// A process-wide system was bootstrapped a second time: the first value stays.
///
/// Each of Parley's process-wide systems (``ProcessWideSystem``) is installed once, at
/// start-up. A test, or any code that needs another value for a while, runs with the system's
/// scoped value instead (`ClientSystem.withConfiguration(_:operation:)`,
/// `FeedbackSystem.withPresenter(_:catalog:operation:)`, `ReloadSystem.withPrompt(_:operation:)`).
public struct SystemBootstrapError: Error, Hashable, Sendable, CustomStringConvertible, ActionableError {
    /// The system's name: `ClientSystem`.
    public let system: String

    /// The error for `system`.
    ///
    /// - Parameter system: The system's name.
    public init(system: String) {
        self.system = system
    }

    /// What happened and what to do.
    public var message: String {
        "\(system) was bootstrapped already; the value installed first stays. Bootstrap it once, at start-up; "
            + "to use another value for a task and its child tasks (as tests do), run that work in the "
            + "system's scoped value (its `with…` function)."
    }

    /// The ``message``.
    public var description: String { message }
}
