import Downloads
import Foundation
import HTTPTypes
import Retry
import Transport

/// Turns a download form into a `FileDownload`, runs the plugins around it, and reports the
/// download's progress, retries and redirects as events of the handle.
struct DownloadPipeline<Form: DownloadFormable>: Sendable {
    let configuration: ClientConfiguration
    let form: Form
    /// Whether a partial left by an earlier download is continued.
    let resumes: Bool
    /// The call's own options.
    var options = CallOptions()
    /// The sender's prompt (it is `Reloadable`), used when the form's options name none.
    var reloadPrompt: (any ReloadPrompt)?

    /// The URL and metrics of the latest hop, as the transport reports them.
    private final class LastHop: Sendable {
        let state: PThreadMutex<(url: String, metrics: TransferMetrics?)>
        init(url: String) { state = PThreadMutex((url, nil)) }
    }

    func run(events: RequestEventSink) async throws -> DownloadRequest.Outcome {
        let plugins = configuration.activePlugins
        do {
            var request = try await makeRequest()
            // A download's body goes to a file, not through the onion's collected path: of
            // the plugins' links it runs the request's two, then ends with `afterDownload`.
            try await plugins.permit(request, form: form, action: "download of")
            try await plugins.prepare(&request, form: form)
            try RequestCancellation.checkCancellation()
            // In flight from here on: the client's registry may cancel it by kind.
            let registration = configuration.requests.register(request)
            defer { configuration.requests.unregister(registration) }

            let lastHop = LastHop(url: request.url)
            // Weakly, as the request's options may outlive the run.
            let send = events.sender
            request.options.eventHandler = { event in
                switch event {
                case .redirect(let redirect):
                    lastHop.state.withLock { $0.url = redirect.to }
                    send(.transfer(event))
                case .metrics(let metrics):
                    lastHop.state.withLock { $0.metrics = metrics }
                    send(.transfer(event))
                case .retry(let retry):
                    send(.retry(retry))
                case .downloadProgress, .uploadProgress, .informationalResponse:
                    // The download reports its own progress, which counts the resumed bytes too.
                    break
                }
            }
            let download = FileDownload(
                request: request, to: form.destination.path, transport: configuration.sendingTransport,
                options: options(events: events))
            let summary = try await download.run()
            for plugin in plugins { await plugin.afterDownload(.success(summary), form: form) }
            let (url, metrics) = lastHop.state.withLock { ($0.url, $0.metrics) }
            return .init(
                value: summary, response: summary.response.map { ResponseInfo(head: $0, url: url, metrics: metrics) })
        } catch {
            for plugin in plugins { await plugin.afterDownload(.failure(error), form: form) }
            throw error
        }
    }

    /// The download a ``DownloadManager`` task of the form runs: the request built and
    /// prepared by the plugins, through the client's transport, under its retry policy. The
    /// task reports the progress; `finish` runs the plugins' `afterDownload`.
    func taskSource() -> DownloadTaskSource {
        let plugins = configuration.activePlugins
        let form = form
        return DownloadTaskSource(
            name: form.path,
            prepare: {
                var request = try await makeRequest()
                try await plugins.permit(request, form: form, action: "download of")
                try await plugins.prepare(&request, form: form)
                return .init(request: request, transport: configuration.sendingTransport, options: downloadOptions())
            },
            finish: { outcome in
                for plugin in plugins { await plugin.afterDownload(outcome, form: form) }
            })
    }

    /// The form's download options, reporting progress and retries to the handle as well.
    private func options(events: RequestEventSink) -> FileDownload.Options {
        var options = downloadOptions()
        let progressHandler = options.progressHandler
        options.progressHandler = { progress in
            events.send(.transfer(.downloadProgress(progress)))
            progressHandler?(progress)
        }
        let retryHandler = options.retryHandler
        options.retryHandler = { retry, failure in
            events.send(.retry(retry))
            retryHandler?(retry, failure)
        }
        return options
    }

    /// The form's download options under the client's retry policy (unless the form chose its
    /// own), with its digest and the sender's prompt.
    private func downloadOptions() -> FileDownload.Options {
        var options = form.downloadOptions
        // One policy per client, as for every other request, unless the form chose its own.
        if !options.setsRetry { options.retry = configuration.retry }
        if let digest = form.expectedSHA256 { options.expectedSHA256 = digest }
        options.resumesEarlierPartial = resumes
        if options.reloadPrompt == nil { options.reloadPrompt = reloadPrompt }
        return options
    }

    /// The `GET` request the form describes; downloads carry no body.
    private func makeRequest() async throws -> TransportRequest {
        guard form.method == .get else {
            throw FormError(
                .invalidForm,
                message: "The download form for \(form.path) uses \(form.method); downloads must be GET requests, "
                    + "because resuming one repeats it with a Range header. Send other methods with request(_:).")
        }
        guard form.destination.isFileURL else {
            throw FormError(
                .invalidForm,
                message: "The download form for \(form.path) has the destination \(form.destination), which is not "
                    + "a file URL; use URL(fileURLWithPath:).")
        }
        // The client's timeout is meant for ordinary requests and would cut long downloads; a
        // download is bounded by its form's own timeout, and a stall by the stall timeout. With
        // no form timeout the deadline stays as the client's transfer options left it (unset,
        // unless they set one), so an engine-wide default still applies.
        let request = try await RequestPipeline(
            configuration: configuration, form: form, uploadBody: nil, options: options
        )
        .makeRequest(appliesClientTimeout: false)
        guard request.body == nil else {
            throw FormError(
                .invalidForm,
                message: "The download form for \(form.path) has a body (a JSON body, or parameters with the JSON "
                    + "or form encoding); downloads are GET requests without one. Send the parameters in the "
                    + "query with the encoding .urlQuery.")
        }
        return request
    }
}
