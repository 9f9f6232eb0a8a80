import Transport

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
