package import Transport

/// How a ``DownloadManager`` makes the download of a task whose request is only known when it
/// runs: the business layer's download forms, whose request is built by the client (base URL,
/// headers, plugins) once the task has a slot.
package struct DownloadTaskSource: Sendable {
    /// The download to run: what `FileDownload.init(request:to:transport:options:)` takes.
    package struct Prepared: Sendable {
        package var request: TransportRequest
        package var transport: any HTTPTransport
        package var options: FileDownload.Options

        package init(request: TransportRequest, transport: any HTTPTransport, options: FileDownload.Options) {
            self.request = request
            self.transport = transport
            self.options = options
        }
    }

    /// What messages name before the request is built: the form's path, say.
    package var name: String
    /// Builds the download's request; runs once, when the task first gets a slot.
    package var prepare: @Sendable () async throws -> Prepared
    /// Runs after each run of the download, with its outcome, before the task's state changes.
    package var finish: @Sendable (Result<FileDownload.Summary, any Error>) async -> Void

    package init(
        name: String,
        prepare: @escaping @Sendable () async throws -> Prepared,
        finish: @escaping @Sendable (Result<FileDownload.Summary, any Error>) async -> Void
    ) {
        self.name = name
        self.prepare = prepare
        self.finish = finish
    }
}
