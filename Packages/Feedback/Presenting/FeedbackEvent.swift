public import Transport

/// Something a presenter is asked to show.
public enum FeedbackEvent: Sendable {
    /// A request began: cover `container` with `mask` until ``maskEnded(_:outcome:)`` for the
    /// same activity.
    case maskBegan(MaskPlacement)
    /// A request's mask comes off; the container is clear when its last mask ends.
    case maskEnded(ActivityID, outcome: ActivityOutcome)
    /// A transfer with a progress bar began.
    case progressBegan(ActivityID, label: String, container: ContainerInfo)
    /// A transfer moved.
    case progressChanged(ActivityID, direction: TransferDirection, progress: TransferProgress)
    /// An activity made of several requests (a batch) counted another one done: its bar
    /// counts parts ("7/20") instead of bytes.
    case progressCounted(ActivityID, count: CountProgress)
    /// A transfer ended.
    case progressEnded(ActivityID, outcome: ActivityOutcome)
    /// A request is about to be sent again.
    case retrying(ActivityID, RetryNotice)
    /// A warning or an information for a person.
    case message(FeedbackMessage, container: ContainerInfo?)
    /// A line printed to a ``ScrollingLog``.
    case logLine(String, log: ContainerInfo)
}

/// A request about to be sent again, as a person is told of it: the handle's own
/// `RetryEvent`, passed on as it is.
public typealias RetryNotice = RetryEvent
