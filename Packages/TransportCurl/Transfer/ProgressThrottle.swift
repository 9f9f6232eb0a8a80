import Transport

/// Turns libcurl's frequent progress reports into at most about 20 events a second per
/// direction, plus one final event per direction that moved bytes.
struct ProgressThrottle {
    /// The shortest gap between two events of one direction: 50 ms, so at most 20 a second.
    static let interval: Duration = .milliseconds(50)

    private let started = ContinuousClock.now
    private var lastDownloadEvent: ContinuousClock.Instant?
    private var lastUploadEvent: ContinuousClock.Instant?
    private var download: (done: Int64, total: Int64) = (0, 0)
    private var upload: (done: Int64, total: Int64) = (0, 0)

    /// The events due for this report.
    mutating func events(
        downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64, final: Bool
    ) -> [TransferEvent] {
        let now = ContinuousClock.now
        var events: [TransferEvent] = []
        if uploaded != upload.done || uploadTotal != upload.total {
            upload = (uploaded, uploadTotal)
            if lastUploadEvent.map({ now - $0 >= Self.interval }) ?? true {
                lastUploadEvent = now
                events.append(.uploadProgress(value(upload, at: now, final: false)))
            }
        }
        if downloaded != download.done || downloadTotal != download.total {
            download = (downloaded, downloadTotal)
            if lastDownloadEvent.map({ now - $0 >= Self.interval }) ?? true {
                lastDownloadEvent = now
                events.append(.downloadProgress(value(download, at: now, final: false)))
            }
        }
        return events
    }

    /// The closing events of a successful transfer.
    func finalEvents() -> [TransferEvent] {
        let now = ContinuousClock.now
        var events: [TransferEvent] = []
        if upload.done > 0 { events.append(.uploadProgress(value(upload, at: now, final: true))) }
        if download.done > 0 || lastDownloadEvent != nil {
            events.append(.downloadProgress(value(download, at: now, final: true)))
        }
        return events
    }

    private func value(_ direction: (done: Int64, total: Int64), at now: ContinuousClock.Instant, final: Bool)
        -> TransferProgress
    {
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return TransferProgress(
            completed: direction.done,
            total: direction.total > 0 ? direction.total : nil,
            bytesPerSecond: seconds > 0 ? Double(direction.done) / seconds : 0,
            isFinal: final)
    }
}
