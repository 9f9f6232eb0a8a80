import Synchronization
import Transport

/// Draws feedback: the one role every presenter plays, in a terminal, in a test, in an app's
/// own interface.
///
/// The Feedback protocols (``Loadable``, ``Progressable``, ``Warnable``, ``Informable``) turn
/// what happens to a request into ``FeedbackEvent``s and hand them to a presenter; the
/// presenter decides what a person sees. FeedbackConsole's `ConsolePresenter` draws them on
/// standard error, FeedbackTesting's `RecordingPresenter` records them for assertions.
///
/// ``present(_:)`` is called from any thread, the engine's own among them (for progress):
/// record the event and return; draw later, on a thread of your own. A presenter keeps what is
/// live itself: the masks stacked per container (the newest shown, each ended by its own
/// ``FeedbackEvent/maskEnded(_:outcome:)``), the transfers, and the log lines a masked region
/// holds back.
public protocol FeedbackPresenter: Sendable {
    /// Takes one event; must return quickly and never block on drawing.
    func present(_ event: FeedbackEvent)
}

/// A presenter that shows nothing: the default until ``FeedbackSystem/bootstrap(_:catalog:)``.
public struct DiscardingPresenter: FeedbackPresenter {
    /// Creates the presenter.
    public init() {}
    /// Does nothing.
    public func present(_ event: FeedbackEvent) {}
}

/// The process's presenter and message catalog, installed once at start-up by the
/// composition root, as swift-log's `LoggingSystem` installs a log handler.
///
/// ```swift
/// FeedbackSystem.bootstrap(ConsolePresenter(), catalog: .english)
/// ```
///
/// Every Feedback protocol reaches the presenter through `FeedbackSource.presenter`, which a
/// type can override; until bootstrap, a ``DiscardingPresenter`` shows nothing and the catalog
/// is ``MessageCatalog/english``. Unlike swift-log, bootstrapping again replaces both (tests do).
public enum FeedbackSystem {
    private struct State: Sendable {
        var presenter: any FeedbackPresenter = DiscardingPresenter()
        var catalog: MessageCatalog = .english
    }

    private static let state = PThreadMutex(State())

    /// Installs the presenter and the catalog every Feedback protocol uses by default.
    ///
    /// - Parameters:
    ///   - presenter: What draws feedback.
    ///   - catalog: The sentences people read; ``MessageCatalog/english`` by default.
    public static func bootstrap(_ presenter: any FeedbackPresenter, catalog: MessageCatalog = .english) {
        state.withLock { $0 = State(presenter: presenter, catalog: catalog) }
    }

    /// The installed presenter.
    public static var presenter: any FeedbackPresenter {
        state.withLock { $0.presenter }
    }

    /// The installed catalog.
    public static var catalog: MessageCatalog {
        state.withLock { $0.catalog }
    }
}

/// A type that reports feedback: the base of every Feedback protocol.
public protocol FeedbackSource: Sendable {
    /// Where this type's feedback goes; ``FeedbackSystem/presenter`` by default.
    var presenter: any FeedbackPresenter { get }
}

extension FeedbackSource {
    /// ``FeedbackSystem/presenter``.
    public var presenter: any FeedbackPresenter { FeedbackSystem.presenter }
}

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

/// How a request ended, as feedback tells it.
public enum ActivityOutcome: String, Sendable, Hashable {
    /// It succeeded.
    case succeeded
    /// It failed.
    case failed
    /// It was cancelled.
    case cancelled
}
