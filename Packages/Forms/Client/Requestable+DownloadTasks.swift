public import Downloads
import Foundation
import Retry
import Transport

extension Requestable {
    /// Makes a task of ``downloadManager`` that downloads a form's response to its destination
    /// from zero, not started: add its handlers, then call its `download()`.
    ///
    /// The task is the form's download as `download(_:options:startImmediately:)`
    /// sends it (the base URL, the headers, the plugins' `willSend` and `prepare`, the client's
    /// transport and retry policy, the plugins' `afterDownload` after each run), waiting in the
    /// manager's queue for a slot: its request is built when it first gets one. A partial an
    /// earlier download left is discarded as it starts; use a ``DownloadResumeFormable`` to
    /// continue from it.
    ///
    /// ```swift
    /// let task = screen.task(for: RadarForm(to: file))
    ///     .progress { bar.update($0) }
    ///     .response { print($0) }
    /// task.download()
    /// ```
    ///
    /// - Parameters:
    ///   - form: The endpoint and the destination.
    ///   - options: What this call decides over the form and the client: the handlers'
    ///     executor, user information; none by default.
    /// - Returns: The task. Without a client configuration, or without a manager (no
    ///   `DownloadSystem.bootstrap(_:)`, no ``downloadManager`` of this type's own), a task that
    ///   has failed already: its state is `.failed` and its response a ``FormError`` of
    ///   category `notConfigured` or a `TransportError` of category `noDownloadManager`.
    public func task(for form: some DownloadFormable, options: CallOptions = CallOptions()) -> DownloadTask {
        task(for: form, resumes: false, options: options)
    }

    /// Makes a task of ``downloadManager`` that downloads a form's response to its destination,
    /// continuing from the partial file an earlier download left there; not started.
    ///
    /// As `task(for:options:)`, resuming as
    /// `download(_:options:startImmediately:)` does.
    ///
    /// - Parameters:
    ///   - form: The endpoint and the destination.
    ///   - options: What this call decides over the form and the client; none by default.
    /// - Returns: The task, or one that has failed already without a configuration or a
    ///   manager.
    public func task(for form: some DownloadResumeFormable, options: CallOptions = CallOptions()) -> DownloadTask {
        task(for: form, resumes: true, options: options)
    }

    private func task(for form: some DownloadFormable, resumes: Bool, options: CallOptions) -> DownloadTask {
        let destination = form.destination.path
        guard case (let configuration, var resolved)? = resolved(form, options) else {
            return DownloadTask(failed: notConfiguredError, destination: destination, executor: options.executor)
        }
        let executor = options.executor ?? configuration.handlerExecutor
        guard let manager = downloadManager else {
            return DownloadTask(failed: DownloadSystem.notConfiguredError, destination: destination, executor: executor)
        }
        resolved.executor = executor
        let pipeline = DownloadPipeline(
            configuration: configuration, form: form, resumes: resumes, options: resolved,
            reloadPrompt: (self as? any Reloadable)?.reloadPrompt)
        return manager.task(from: pipeline.taskSource(), to: destination, executor: executor)
    }
}
