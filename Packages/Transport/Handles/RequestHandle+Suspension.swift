extension RequestHandle {
    /// Holds the request still until ``resume()``: its transfer stops moving bytes, in both
    /// directions, and the handle goes on waiting for its outcome.
    ///
    /// With `CurlTransport`, the transfer is paused with libcurl's own pause
    /// (`curl_easy_pause`), apart from the pause a full response buffer causes: draining that
    /// buffer does not move a suspended request, and resuming does not lift a pause the
    /// consumer of a streamed body still needs. The connection stays open; the server sees a
    /// reader that stopped reading (TCP flow control), and a request body stops being sent.
    ///
    /// - A handle suspended before its transfer exists (created with `startImmediately:
    ///   false`, or awaiting a slot or a retry) starts that transfer held. Every later transfer
    ///   of the same run (the next attempt of a retry, the next hop of a redirect) does too,
    ///   until ``resume()``.
    /// - The stall timeout (`TransferOptions.stallTimeout`) does not run while the request is
    ///   suspended: a suspension longer than it does not fail the request, and the stall clock
    ///   starts again on ``resume()``.
    /// - The request's deadline (`TransferOptions.deadline`, a client's `timeout`) keeps
    ///   counting: it is the caller's bound on the whole request, suspensions included, so a
    ///   request suspended past it fails with `.timedOut`. Leave the deadline unset for
    ///   requests meant to be suspended for long (downloads set none by default).
    /// - ``cancel()`` of a suspended handle cancels it. Suspending a finished handle does
    ///   nothing; a handle that finishes while suspended (cancelled, timed out) is no longer
    ///   suspended, and ``reload()`` runs it unsuspended.
    /// - A suspension reaches what the operation waits on through ``RequestCancellation``
    ///   (``RequestCancellation/withCancellationHandler(operation:onCancel:onSuspensionChange:isolation:)``):
    ///   Parley's engine and downloads honour it; a transfer shared with other callers
    ///   (`InFlightSharing`) is not held, since it is not this request's alone.
    ///
    /// ```swift
    /// let download = screen.download(form)
    /// download.suspend()      // bytes stop arriving; the partial file stays
    /// download.resume()       // they arrive again
    /// let summary = try await download.value
    /// ```
    ///
    /// - Returns: This handle.
    @discardableResult
    public func suspend() -> Self {
        core.suspend()
        return self
    }

    /// Lets a request suspended with ``suspend()`` move again; does nothing when it is not
    /// suspended.
    ///
    /// - Returns: This handle.
    @discardableResult
    public func resume() -> Self {
        core.resume()
        return self
    }

    /// Whether the handle is suspended (``suspend()``) and not resumed since; `false` once it
    /// has finished.
    public var isSuspended: Bool {
        core.isSuspended
    }
}
