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
    /// The download figures of the last download event.
    private var shownDownload: (done: Int64, total: Int64) = (0, 0)
    /// The upload figures of the last upload event.
    private var shownUpload: (done: Int64, total: Int64) = (0, 0)

    /// A throttle for a transfer that started at `started`.
    init(started: ContinuousClock.Instant = .now) {
        self.started = started
    }

    /// Passes the events due for this report to `emit`, upload first.
    ///
    /// A direction has an event due when its figures differ from its last event's and that
    /// event is at least ``interval`` old, or when it reaches its known total: an upload whose
    /// body fits the socket buffers goes out in one burst and then waits, with no report from
    /// libcurl until the server answers, so its last bytes must not wait for the interval.
    /// Figures held back by the interval go out with the next report, even one that brings
    /// nothing new. A report with nothing new and nothing held back costs neither a clock read
    /// (`now` is evaluated only then) nor an allocation.
    mutating func report(
        downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64,
        now: @autoclosure () -> ContinuousClock.Instant = ContinuousClock.now,
        emit: (TransferEvent) -> Void
    ) {
        upload = (uploaded, uploadTotal)
        download = (downloaded, downloadTotal)
        let uploadPending = upload != shownUpload
        let downloadPending = download != shownDownload
        guard uploadPending || downloadPending else { return }
        let now = now()
        if uploadPending, Self.isDue(upload, last: lastUploadEvent, now: now) {
            lastUploadEvent = now
            shownUpload = upload
            emit(.uploadProgress(value(upload, at: now, final: false)))
        }
        if downloadPending, Self.isDue(download, last: lastDownloadEvent, now: now) {
            lastDownloadEvent = now
            shownDownload = download
            emit(.downloadProgress(value(download, at: now, final: false)))
        }
    }

    /// Whether a direction whose figures changed has an event due: its last event is at least
    /// ``interval`` old, or it has just reached its known total, which goes out at once.
    private static func isDue(
        _ figures: (done: Int64, total: Int64), last: ContinuousClock.Instant?, now: ContinuousClock.Instant
    ) -> Bool {
        guard let last else { return true }
        return now - last >= interval || (figures.total > 0 && figures.done >= figures.total)
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
