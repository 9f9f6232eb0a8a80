import Synchronization

/// What identifies one request's feedback: its mask, its progress bar, its retry notices.
public struct ActivityID: Sendable, Hashable, Comparable, CustomStringConvertible {
    private static let counter = Atomic<UInt64>(0)

    /// The number; unique in the process.
    public let rawValue: UInt64

    /// Creates an identifier with a chosen number, for tests.
    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A new identifier, never handed out before in this process.
    public static func next() -> ActivityID {
        ActivityID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    /// Identifiers in the order they were made.
    public static func < (lhs: ActivityID, rhs: ActivityID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }
}
