public import Transport

/// A type that shows the progress of uploads and downloads: percent, bytes, rate and time
/// left, or a spinner and a byte count when the total is unknown; for a handle that stands for
/// several requests (a batch), how many of them are done ("7/20").
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
    /// Whether there is a bar at all; `true` by default (``ProgressType/none`` says `false`).
    var showsProgress: Bool { get }
    /// What the bar is labelled; `Transfer` by default.
    var progressLabel: String { get }
    /// Where the bar goes: the type itself when it is ``Containable``, otherwise the ``Screen``.
    var progressContainer: (any Containable)? { get }
    /// A transfer started.
    func progressBegan(_ activity: ActivityID)
    /// A transfer moved.
    func progressChanged(_ activity: ActivityID, direction: TransferDirection, progress: TransferProgress)
    /// An activity made of several requests counted another one done.
    func progressCounted(_ activity: ActivityID, count: CountProgress)
    /// A transfer is about to be sent again.
    func progressRetrying(_ activity: ActivityID, notice: RetryNotice)
    /// A transfer ended.
    func progressEnded(_ activity: ActivityID, outcome: ActivityOutcome)
}

extension Progressable {
    /// `true`.
    public var showsProgress: Bool { true }
    /// `Transfer`.
    public var progressLabel: String { "Transfer" }
    /// The type itself when it is ``Containable``; `nil` otherwise.
    public var progressContainer: (any Containable)? { self as? any Containable }

    /// Presents a new bar, when ``showsProgress``.
    public func progressBegan(_ activity: ActivityID) {
        guard showsProgress else { return }
        presenter.present(
            .progressBegan(activity, label: progressLabel, container: (progressContainer ?? Screen()).containerInfo))
    }

    /// Presents the new position, when ``showsProgress``.
    public func progressChanged(_ activity: ActivityID, direction: TransferDirection, progress: TransferProgress) {
        guard showsProgress else { return }
        presenter.present(.progressChanged(activity, direction: direction, progress: progress))
    }

    /// Presents the new count, when ``showsProgress``.
    public func progressCounted(_ activity: ActivityID, count: CountProgress) {
        guard showsProgress else { return }
        presenter.present(.progressCounted(activity, count: count))
    }

    /// Presents the notice on the bar, when ``showsProgress``.
    public func progressRetrying(_ activity: ActivityID, notice: RetryNotice) {
        guard showsProgress else { return }
        presenter.present(.retrying(activity, notice))
    }

    /// Presents the end of the bar, when ``showsProgress``.
    public func progressEnded(_ activity: ActivityID, outcome: ActivityOutcome) {
        guard showsProgress else { return }
        presenter.present(.progressEnded(activity, outcome: outcome))
    }
}

extension Progressable {
    /// This bar's label and container, presented through `presenter` instead of ``FeedbackSource/presenter``:
    /// for a ready-made bar such as ``ProgressType`` in a test with a recorder of its own.
    public func presenting(through presenter: any FeedbackPresenter) -> RoutedProgressable {
        RoutedProgressable(
            showsProgress: showsProgress, progressLabel: progressLabel, progressContainer: progressContainer,
            presenter: presenter)
    }
}
