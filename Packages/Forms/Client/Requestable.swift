public import Downloads
import Foundation
import Retry
public import Transport

/// A type that can send forms: adopt it and call ``request(_:options:startImmediately:)``, the upload
/// methods or the download methods.
///
/// ```swift
/// public protocol WeatherAPI: Requestable {}
/// extension WeatherAPI {
///     public func forecast(city: String) -> DataRequest<DataResponse> {
///         request(WeatherForm.forecast(city: city))
///     }
/// }
/// ```
///
/// Requests use ``ClientSystem/configuration`` unless the type supplies its own
/// ``clientConfiguration``. Without either, the returned handle fails at once with a
/// ``FormError`` of category `notConfigured`.
public protocol Requestable {
    /// The configuration this type's requests use; ``ClientSystem/configuration`` by default.
    var clientConfiguration: ClientConfiguration? { get }

    /// The manager the tasks of this type's download forms go to
    /// (`task(for:options:)`); `DownloadSystem.manager` by default.
    var downloadManager: DownloadManager? { get }
}

extension Requestable {
    /// ``ClientSystem/configuration``.
    public var clientConfiguration: ClientConfiguration? { ClientSystem.configuration }

    /// `DownloadSystem.manager`, the process's manager.
    public var downloadManager: DownloadManager? { DownloadSystem.manager }

    /// Sends a form; the response is collected in memory.
    ///
    /// - Parameters:
    ///   - form: The endpoint.
    ///   - options: What this call decides over the form and the client: a timeout, user
    ///     information, the handlers' executor. None by default.
    ///   - startImmediately: `true` (the default) sends now; `false` waits for `start()`.
    /// - Returns: The handle; decode it with Mapping's `decode(_:at:)`.
    public func request(
        _ form: some RequestFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> DataRequest<DataResponse> {
        send(form, body: nil, options: options, startImmediately: startImmediately)
    }

    /// Sends a form and returns its response, in the calling task: no handle, and no task of
    /// its own.
    ///
    /// The same request as ``request(_:options:startImmediately:)`` sends (the client's retries,
    /// plugins and middleware), for code that only awaits the answer: there are no handlers, no
    /// events to observe and nothing to reload, and the response reaches the caller without the
    /// thread hand-overs of a handle's task. Decode it with Mapping's `ResponseDecoder`:
    ///
    /// ```swift
    /// let response = try await screen.data(for: WeatherForm.forecast(city: "Oslo"))
    /// let forecast = try ResponseDecoder().decodeEnvelope(Forecast.self, from: response)
    /// ```
    ///
    /// - Parameters:
    ///   - form: The endpoint.
    ///   - options: What this call decides over the form and the client (a timeout, user
    ///     information); the executor is not used, as nothing runs handlers.
    /// - Returns: The response, its body collected.
    /// - Throws: A ``FormError`` of category `notConfigured` without a configuration, the
    ///   transport's `TransportError` (category `cancelled` when the calling task is cancelled),
    ///   or what a plugin throws.
    public func data(
        for form: some RequestFormable, options: CallOptions = CallOptions()
    ) async throws -> DataResponse {
        guard let (configuration, resolved) = resolved(form, options) else { throw notConfiguredError }
        let pipeline = RequestPipeline(
            configuration: configuration, form: form, uploadBody: nil, options: resolved,
            memory: RetryMemory(idempotencyKey: form.idempotencyKey?.resolve()),
            reloadPrompt: (self as? any Reloadable)?.reloadPrompt)
        do {
            return try await pipeline.run(events: nil).value
        } catch is CancellationError {
            throw TransportError(.cancelled, message: "The request was cancelled before it completed.")
        }
    }

    /// Uploads a form's bytes.
    public func upload(
        _ form: some UploadDataFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> UploadRequest<DataResponse> {
        send(form, body: (.bytes(form.data), form.contentType), options: options, startImmediately: startImmediately)
    }

    /// Uploads a form's file, streamed from disk.
    public func upload(
        _ form: some UploadFileFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> UploadRequest<DataResponse> {
        send(
            form, body: (.file(path: form.fileURL.path), form.contentType), options: options,
            startImmediately: startImmediately)
    }

    /// Uploads a form's stream.
    public func upload(
        _ form: some UploadStreamFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> UploadRequest<DataResponse> {
        send(form, body: (form.stream, form.contentType), options: options, startImmediately: startImmediately)
    }

    /// Uploads a form's multipart parts, streamed.
    public func upload(
        _ form: some UploadMultipartFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> UploadRequest<DataResponse> {
        let multipart = form.multipart
        do {
            return send(
                form, body: (try multipart.makeBody(), multipart.contentType), options: options,
                startImmediately: startImmediately)
        } catch {
            return UploadRequest(finished: .failure(error))
        }
    }

    /// Downloads a form's response to its destination, starting from zero.
    ///
    /// A partial file an earlier download left at the destination is discarded first; use a
    /// ``DownloadResumeFormable`` to continue from it. Cancelling the handle keeps the bytes
    /// received so far for such a resuming download.
    ///
    /// - Parameters:
    ///   - form: The endpoint and the destination.
    ///   - options: What this call decides over the form and the client; none by default.
    ///   - startImmediately: `true` (the default) starts now; `false` waits for `start()`.
    /// - Returns: The handle; its value is the summary of the finished file, and its events
    ///   report progress (resumed bytes included), redirects and retries.
    public func download(
        _ form: some DownloadFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> DownloadRequest {
        download(form, resumes: false, options: options, startImmediately: startImmediately)
    }

    /// Downloads a form's response to its destination, continuing from the partial file an
    /// earlier download left there (a cancelled or failed one, or one whose process was killed).
    ///
    /// The rest is asked for with `Range` and `If-Range`; a server with a new version of the
    /// file, or one that ignores ranges, makes it start from zero. Without a partial, the whole
    /// file is downloaded.
    ///
    /// - Parameters:
    ///   - form: The endpoint and the destination.
    ///   - options: What this call decides over the form and the client; none by default.
    ///   - startImmediately: `true` (the default) starts now; `false` waits for `start()`.
    /// - Returns: The handle; the summary's `resumedFrom` tells how many bytes were kept.
    public func download(
        _ form: some DownloadResumeFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> DownloadRequest {
        download(form, resumes: true, options: options, startImmediately: startImmediately)
    }

    private func send(
        _ form: some Formable, body: (RequestBody, String)?, options: CallOptions, startImmediately: Bool
    ) -> DataRequest<DataResponse> {
        // Made once per logical request: every attempt and every reload carries the same key.
        let memory = RetryMemory(idempotencyKey: form.idempotencyKey?.resolve())
        let reloadPrompt = (self as? any Reloadable)?.reloadPrompt
        let cachedFirst = options.deliversCachedFirst && body == nil ? CachedFirst() : nil
        guard let (configuration, options) = prepared(form, options) else {
            return DataRequest(finished: .failure(notConfiguredError))
        }
        let pipeline = RequestPipeline(
            configuration: configuration, form: form, uploadBody: body, options: options, memory: memory,
            reloadPrompt: reloadPrompt, cachedFirst: cachedFirst)
        // The pipeline is the operation, its response boxed: no closure around it. Everything it
        // waits on (the transport, retry, sharing, limits) honours `RequestCancellation`, so an
        // awaiting task may run it.
        let handle = DataRequest<DataResponse>(
            startImmediately: startImmediately, userInfo: options.userInfo, executor: options.executor,
            taskExecutor: configuration.taskExecutor, runsInAwaitingTask: true, boxedOperation: pipeline)
        if let cachedFirst {
            // Weakly: a handler lives as long as its handle.
            handle.completion { [weak handle] _ in
                if cachedFirst.takesFollowUp() { handle?.reload() }
            }
        }
        return handle
    }

    private func download(
        _ form: some DownloadFormable, resumes: Bool, options: CallOptions, startImmediately: Bool
    ) -> DownloadRequest {
        let reloadPrompt = (self as? any Reloadable)?.reloadPrompt
        guard let (configuration, options) = prepared(form, options) else {
            return DownloadRequest(finished: .failure(notConfiguredError))
        }
        let pipeline = DownloadPipeline(
            configuration: configuration, form: form, resumes: resumes, options: options, reloadPrompt: reloadPrompt)
        // A download waits on the transport and the retries, which honour `RequestCancellation`.
        return DownloadRequest(
            startImmediately: startImmediately, userInfo: options.userInfo, executor: options.executor,
            taskExecutor: configuration.taskExecutor, runsInAwaitingTask: true,
            operation: { events in try await pipeline.run(events: events) })
    }

    /// What a handle for `form` runs with: the configuration of `form` (this type's, adjusted
    /// by the form) and the call's options, with the client's user information merged under
    /// them and the client's executor when the call names none; `nil` without a configuration.
    private func prepared(_ form: some Formable, _ options: CallOptions) -> (ClientConfiguration, CallOptions)? {
        guard case (let configuration, var resolved)? = resolved(form, options) else { return nil }
        resolved.executor = options.executor ?? configuration.handlerExecutor
        return (configuration, resolved)
    }

    /// This type's configuration adjusted by `form`, then by the call's `configure`, and the call's options with the client's
    /// user information merged under them; `nil` without a configuration.
    func resolved(_ form: some Formable, _ options: CallOptions) -> (ClientConfiguration, CallOptions)? {
        guard var configuration = clientConfiguration else { return nil }
        form.configure(&configuration)
        if let configure = options.configure {
            // The call's own changes, last; the result travels with the request for its plugins.
            configure(&configuration)
            configuration.userInfo.callConfiguration = configuration
        }
        var resolved = options
        resolved.userInfo = configuration.userInfo.merging(options.userInfo)
        return (configuration, resolved)
    }

    var notConfiguredError: FormError {
        FormError(
            .notConfigured,
            message: "No client is configured for \(type(of: self)). Call ClientSystem.bootstrap(_:) at start-up "
                + "with a ClientConfiguration (a transport and a base URL), or implement clientConfiguration.")
    }
}
