public import Transport

/// The application's one download manager, reachable from anywhere, in the style of
/// `ClientSystem`.
///
/// The composition root makes a ``DownloadManager`` and installs it once with
/// ``bootstrap(_:)``; code anywhere then makes tasks in it with ``task(for:to:options:executor:)``
/// or ``download(url:to:options:executor:)``, and the business layer's `Requestable` puts the
/// tasks of its download forms in it. Used before any bootstrap, these throw a
/// ``/Transport/TransportError`` of category `noDownloadManager`;
/// nothing crashes. A second bootstrap throws and changes nothing; a test runs its downloads in
/// ``withManager(_:isolation:operation:)`` instead.
///
/// ```swift
/// try DownloadSystem.bootstrap(DownloadManager(transport: transport, maximumConcurrentDownloads: 2))
/// // anywhere:
/// try DownloadSystem.download(url: "https://example.com/a.iso", to: "a.iso")
///     .progress { print($0.completed) }
///     .response { print($0) }
/// ```
public enum DownloadSystem {
    private static let system = ProcessWideSystem<DownloadManager?>(name: "DownloadSystem", default: nil)

    /// Installs the manager, once for the process.
    ///
    /// - Parameter manager: The manager every download of the process goes to from now on.
    /// - Throws: ``/Transport/SystemBootstrapError`` when a manager was installed already.
    public static func bootstrap(_ manager: DownloadManager) throws {
        try system.bootstrap(manager)
    }

    /// The manager the calling task sees: its scoped one
    /// (``withManager(_:isolation:operation:)``), else the installed one, else `nil`.
    public static var manager: DownloadManager? {
        system.value
    }

    /// Runs `operation` with `manager` as the download manager of the calling task and the
    /// tasks it starts, whatever is installed.
    ///
    /// - Parameters:
    ///   - manager: The manager for the scope.
    ///   - isolation: The actor `operation` runs on: the caller's.
    ///   - operation: The work.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withManager<R>(
        _ manager: DownloadManager, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        try await system.withValue(manager, operation: operation)
    }

    /// The manager the calling task sees, or the error saying how to install one.
    ///
    /// - Returns: ``manager``.
    /// - Throws: ``/Transport/TransportError`` of category
    ///   `noDownloadManager` when there is none.
    public static func requireManager() throws -> DownloadManager {
        guard let manager else { throw notConfiguredError }
        return manager
    }

    /// Makes a task for `url` in ``manager``, not started; see
    /// ``DownloadManager/task(for:to:options:executor:)-(String,_,_,_)``.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: Where the file goes.
    ///   - options: The download's options.
    ///   - executor: Where the task's handlers run.
    /// - Returns: The task, not started.
    /// - Throws: ``/Transport/TransportError``: `.noDownloadManager` before a bootstrap,
    ///   `.invalidURL` for a URL ``/Transport/TransportRequest`` refuses.
    public static func task(
        for url: String,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options(),
        executor: HandlerExecutor? = nil
    ) throws -> DownloadTask {
        try requireManager().task(for: url, to: destination, options: options, executor: executor)
    }

    /// Makes a task for `url` in ``manager`` and queues it at once; see
    /// ``DownloadManager/download(url:to:options:executor:)``.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - destination: Where the file goes.
    ///   - options: The download's options.
    ///   - executor: Where the task's handlers run.
    /// - Returns: The task, queued.
    /// - Throws: ``/Transport/TransportError``: `.noDownloadManager` before a bootstrap,
    ///   `.invalidURL` for a URL ``/Transport/TransportRequest`` refuses.
    @discardableResult
    public static func download(
        url: String,
        to destination: String,
        options: FileDownload.Options = FileDownload.Options(),
        executor: HandlerExecutor? = nil
    ) throws -> DownloadTask {
        try requireManager().download(url: url, to: destination, options: options, executor: executor)
    }

    /// The error of a download made before any manager was installed.
    package static var notConfiguredError: TransportError {
        TransportError(
            .noDownloadManager,
            message: "No download manager is installed. Call DownloadSystem.bootstrap(_:) at start-up with a "
                + "DownloadManager (a transport and how many downloads run at once), or run the downloads in "
                + "DownloadSystem.withManager(_:operation:).")
    }
}
