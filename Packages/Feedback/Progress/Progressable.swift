public import Transport

/// A type that shows the progress of uploads and downloads: percent, bytes, rate and time
/// left, or a spinner and a byte count when the total is unknown.
///
/// Hand it to a handle's `progress(_:)`. Each transfer is a bar of its own, so several
/// concurrent transfers are several bars. The defaults present every step to the presenter
/// under ``progressLabel`` in ``progressContainer``:
///
/// ```swift
/// struct RadarDownload: Progressable {
///     var progressLabel: String { "radar.png" }
/// }
/// let summary = try await api.radar(city: "Toronto", to: file).progress(RadarDownload()).value
/// ```
public protocol Progressable: FeedbackSource {
    /// What the bar is labelled; `Transfer` by default.
    var progressLabel: String { get }
    /// Where the bar goes: the type itself when it is ``Containable``, otherwise the ``Screen``.
    var progressContainer: (any Containable)? { get }
    /// A transfer started.
    func progressBegan(_ activity: ActivityID)
    /// A transfer moved.
    func progressChanged(_ activity: ActivityID, direction: TransferDirection, progress: TransferProgress)
    /// A transfer is about to be sent again.
    func retrying(_ activity: ActivityID, notice: RetryNotice)
    /// A transfer ended.
    func progressEnded(_ activity: ActivityID, outcome: ActivityOutcome)
}

extension Progressable {
    /// `Transfer`.
    public var progressLabel: String { "Transfer" }
    /// The type itself when it is ``Containable``; `nil` otherwise.
    public var progressContainer: (any Containable)? { self as? any Containable }

    /// Presents a new bar.
    public func progressBegan(_ activity: ActivityID) {
        presenter.present(
            .progressBegan(activity, label: progressLabel, container: (progressContainer ?? Screen()).containerInfo))
    }

    /// Presents the new position.
    public func progressChanged(_ activity: ActivityID, direction: TransferDirection, progress: TransferProgress) {
        presenter.present(.progressChanged(activity, direction: direction, progress: progress))
    }

    /// Presents the notice on the bar.
    public func retrying(_ activity: ActivityID, notice: RetryNotice) {
        presenter.present(.retrying(activity, notice))
    }

    /// Presents the end of the bar.
    public func progressEnded(_ activity: ActivityID, outcome: ActivityOutcome) {
        presenter.present(.progressEnded(activity, outcome: outcome))
    }
}

/// The ready-made progress bars.
public enum ProgressType: Progressable {
    /// No bar.
    case none
    /// A bar labelled `label` on the screen.
    case bar(label: String)

    /// The label of the bar.
    public var progressLabel: String {
        switch self {
        case .none: ""
        case .bar(let label): label
        }
    }

    /// The screen.
    public var progressContainer: (any Containable)? { nil }

    /// Presents a new bar, unless ``none``.
    public func progressBegan(_ activity: ActivityID) {
        guard case .bar = self else { return }
        presenter.present(.progressBegan(activity, label: progressLabel, container: Screen().containerInfo))
    }

    /// Presents the new position, unless ``none``.
    public func progressChanged(_ activity: ActivityID, direction: TransferDirection, progress: TransferProgress) {
        guard case .bar = self else { return }
        presenter.present(.progressChanged(activity, direction: direction, progress: progress))
    }

    /// Presents the notice, unless ``none``.
    public func retrying(_ activity: ActivityID, notice: RetryNotice) {
        guard case .bar = self else { return }
        presenter.present(.retrying(activity, notice))
    }

    /// Presents the end of the bar, unless ``none``.
    public func progressEnded(_ activity: ActivityID, outcome: ActivityOutcome) {
        guard case .bar = self else { return }
        presenter.present(.progressEnded(activity, outcome: outcome))
    }
}
