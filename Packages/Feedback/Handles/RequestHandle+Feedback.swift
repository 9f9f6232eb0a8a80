public import Transport

/// The Feedback chain on every handle, as in the seeds'
/// `request(form).load(load).progress(progress).warn(warn).inform(inform)`.
///
/// Each call registers its feedback and returns the same handle, so it mixes freely with
/// `success`, `failure`, `completion` and `await`:
///
/// ```swift
/// let forecast = try await api.forecast(city: "Toronto")
///     .load(LoadType.default(container: Panel(title: "Toronto")))
///     .warn(Alert(title: "Weather"))
///     .value
/// ```
///
/// Handlers run in the order they were added, so chain feedback before your own handlers:
/// the mask is then off, and the warning shown, before `success` or `failure` runs and before
/// `value` returns.
extension RequestHandle {
    /// Shows `loadable`'s mask while the request runs.
    ///
    /// The mask goes on when the request starts (at once when it has started already) and
    /// comes off when it finishes, success or failure, or when a plugin or a middleware stops
    /// it (`RequestStop`: ended as cancelled, with no warning); retries are shown beside it.
    ///
    /// - Parameter loadable: What to show; ``LoadType/none`` for nothing.
    /// - Returns: This handle.
    @discardableResult
    public func load(_ loadable: any Loadable) -> Self {
        let activity = ActivityID.next()
        onStart { loadable.begin(activity) }
        observe { event in
            if case .retry(let retry) = event { loadable.maskRetrying(activity, notice: retry) }
        }
        completion { result in loadable.end(activity, outcome: ActivityOutcome(result)) }
        // A run a plugin or a middleware stopped calls back no completion handler: the mask
        // comes off all the same, as after a cancel, and nothing is warned.
        onStop { _ in loadable.end(activity, outcome: .cancelled) }
        return self
    }

    /// Shows the progress of the request's uploads and downloads with `progressable`; for a
    /// handle that stands for several requests (a batch), how many of them are done.
    ///
    /// - Parameter progressable: What to show; ``ProgressType/none`` for nothing.
    /// - Returns: This handle.
    @discardableResult
    public func progress(_ progressable: any Progressable) -> Self {
        let activity = ActivityID.next()
        onStart { progressable.progressBegan(activity) }
        observe { event in
            switch event {
            case .transfer(.uploadProgress(let progress)):
                progressable.progressChanged(activity, direction: .upload, progress: progress)
            case .transfer(.downloadProgress(let progress)):
                progressable.progressChanged(activity, direction: .download, progress: progress)
            case .count(let count):
                progressable.progressCounted(activity, count: count)
            case .retry(let retry):
                progressable.progressRetrying(activity, notice: retry)
            default:
                break
            }
        }
        completion { result in progressable.progressEnded(activity, outcome: ActivityOutcome(result)) }
        onStop { _ in progressable.progressEnded(activity, outcome: .cancelled) }
        return self
    }

    /// Warns with `warnable` when the request fails; see ``Warnable`` for which failures say
    /// what.
    ///
    /// - Parameter warnable: What warns.
    /// - Returns: This handle.
    @discardableResult
    public func warn(_ warnable: any Warnable) -> Self {
        failure { failure in warnable.warn(failure.underlying) }
        return self
    }

    /// Informs with `informable` when the request succeeds; see ``Informable`` for what it says.
    ///
    /// - Parameter informable: What informs.
    /// - Returns: This handle.
    @discardableResult
    public func inform(_ informable: any Informable) -> Self {
        success { value in informable.inform(value) }
        return self
    }
}

extension ActivityOutcome {
    /// The outcome of a handle's result: a `.cancelled` transport error, a task's
    /// cancellation, or a `RequestStop` (a request stopped on purpose), is a cancellation.
    public init<Value>(_ result: Result<Value, any Error>) {
        switch result {
        case .success:
            self = .succeeded
        case .failure(let error):
            let cancelled =
                (error as? TransportError)?.category == .cancelled || error is CancellationError
                || error is RequestStop
            self = cancelled ? .cancelled : .failed
        }
    }
}
