import Transport

/// The process's presenter and message catalog, installed once at start-up by the
/// composition root, as swift-log's `LoggingSystem` installs a log handler.
///
/// ```swift
/// try FeedbackSystem.bootstrap(ConsolePresenter(), catalog: .english)
/// ```
///
/// Every Feedback protocol reaches the presenter through `FeedbackSource.presenter`, which a
/// type can override; until bootstrap, a ``DiscardingPresenter`` shows nothing and the catalog
/// is ``MessageCatalog/english``. A second bootstrap throws and changes nothing; a test shows
/// its feedback through ``withPresenter(_:catalog:isolation:operation:)`` instead.
public enum FeedbackSystem {
    /// A presenter and the catalog it speaks with.
    private struct State: Sendable {
        var presenter: any FeedbackPresenter = DiscardingPresenter()
        var catalog: MessageCatalog = .english
    }

    private static let system = ProcessWideSystem(name: "FeedbackSystem", default: State())

    /// Installs the presenter and the catalog every Feedback protocol uses by default, once for
    /// the process.
    ///
    /// - Parameters:
    ///   - presenter: What draws feedback.
    ///   - catalog: The sentences people read; ``MessageCatalog/english`` by default.
    /// - Throws: ``/Transport/SystemBootstrapError`` when they were installed already.
    public static func bootstrap(_ presenter: any FeedbackPresenter, catalog: MessageCatalog = .english) throws {
        try system.bootstrap(State(presenter: presenter, catalog: catalog))
    }

    /// The presenter the calling task sees: its scoped one, else the installed one.
    public static var presenter: any FeedbackPresenter {
        system.value.presenter
    }

    /// The catalog the calling task sees: its scoped one, else the installed one.
    public static var catalog: MessageCatalog {
        system.value.catalog
    }

    /// Runs `operation` with `presenter` and `catalog` as the calling task's (and the tasks it
    /// starts), whatever is installed.
    ///
    /// - Parameters:
    ///   - presenter: What draws feedback in the scope.
    ///   - catalog: The sentences of the scope; ``MessageCatalog/english`` by default.
    ///   - isolation: The actor `operation` runs on: the caller's.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withPresenter<R>(
        _ presenter: any FeedbackPresenter, catalog: MessageCatalog = .english,
        isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
    ) async rethrows -> R {
        try await system.withValue(State(presenter: presenter, catalog: catalog), operation: operation)
    }
}
