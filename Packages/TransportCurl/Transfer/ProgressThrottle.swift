import Transport

/// Turns libcurl's frequent progress reports into at most about 20 events a second per
/// direction, plus one final event per direction that moved bytes.
struct ProgressThrottle {
    /// The shortest gap between two events of one direction: 50 ms, so at most 20 a second.
    static let interval: Duration = .milliseconds(50)

    /// When the transfer started, for the rate.
    private let started: ContinuousClock.Instant
    /// When the last download event went out.
    private var lastDownloadEvent: ContinuousClock.Instant?
    /// When the last upload event went out.
    private var lastUploadEvent: ContinuousClock.Instant?
    /// The last download figures libcurl reported.
    private var download: (done: Int64, total: Int64) = (0, 0)
    /// The last upload figures libcurl reported.
    private var upload: (done: Int64, total: Int64) = (0, 0)

    /// A throttle for a transfer that started at `started`.
    init(started: ContinuousClock.Instant = .now) {
        self.started = started
    }

    /// Passes the events due for this report to `emit`, upload first.
    ///
    /// libcurl reports many times per transfer, mostly with nothing new: such a report costs
    /// neither a clock read (`now` is evaluated only when a figure changed) nor an allocation.
    mutating func report(
        downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64,
        now: @autoclosure () -> ContinuousClock.Instant = ContinuousClock.now,
        emit: (TransferEvent) -> Void
    ) {
        let uploadChanged = uploaded != upload.done || uploadTotal != upload.total
        let downloadChanged = downloaded != download.done || downloadTotal != download.total
        guard uploadChanged || downloadChanged else { return }
        let now = now()
        if uploadChanged {
            upload = (uploaded, uploadTotal)
            if lastUploadEvent.map({ now - $0 >= Self.interval }) ?? true {
                lastUploadEvent = now
                emit(.uploadProgress(value(upload, at: now, final: false)))
            }
        }
        if downloadChanged {
            download = (downloaded, downloadTotal)
            if lastDownloadEvent.map({ now - $0 >= Self.interval }) ?? true {
                lastDownloadEvent = now
                emit(.downloadProgress(value(download, at: now, final: false)))
            }
        }
    }

    /// Passes the closing events of a successful transfer to `emit`, upload first.
    func reportFinal(
        now: @autoclosure () -> ContinuousClock.Instant = ContinuousClock.now, emit: (TransferEvent) -> Void
    ) {
        let sendsUpload = upload.done > 0
        let sendsDownload = download.done > 0 || lastDownloadEvent != nil
        guard sendsUpload || sendsDownload else { return }
        let now = now()
        if sendsUpload { emit(.uploadProgress(value(upload, at: now, final: true))) }
        if sendsDownload { emit(.downloadProgress(value(download, at: now, final: true))) }
    }

    /// The event value of one direction at `now`.
    private func value(_ direction: (done: Int64, total: Int64), at now: ContinuousClock.Instant, final: Bool)
        -> TransferProgress
    {
        let seconds = (now - started) / .seconds(1)
        return TransferProgress(
            completed: direction.done,
            total: direction.total > 0 ? direction.total : nil,
            bytesPerSecond: seconds > 0 ? Double(direction.done) / seconds : 0,
            isFinal: final)
    }
}
