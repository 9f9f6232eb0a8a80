/// How a request ended, as feedback tells it.
public enum ActivityOutcome: String, Sendable, Hashable {
    /// It succeeded.
    case succeeded
    /// It failed.
    case failed
    /// It was cancelled.
    case cancelled
}
