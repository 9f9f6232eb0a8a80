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

/// A mask on a container, for one request.
public struct MaskPlacement: Sendable, Hashable {
    /// The request.
    public var activity: ActivityID
    /// The mask's ``Maskable/maskId``.
    public var maskId: String
    /// How the mask looks.
    public var appearance: MaskAppearance
    /// Where it goes (for a scrolling log, already the region that does not scroll).
    public var container: ContainerInfo
    /// Space kept free around it.
    public var inset: Inset

    /// Creates a placement.
    public init(activity: ActivityID, mask: any Maskable, container: ContainerInfo, inset: Inset = .zero) {
        self.activity = activity
        self.maskId = mask.maskId
        self.appearance = mask.appearance
        self.container = container
        self.inset = inset
    }
}

/// Which way a transfer's bytes go.
public enum TransferDirection: String, Sendable, Hashable {
    /// A request body going out.
    case upload
    /// A response body coming in.
    case download
}

/// A request about to be sent again, as a person is told of it: the handle's own
/// `RetryEvent`, passed on as it is.
public typealias RetryNotice = RetryEvent

/// A sentence for a person: a warning after a failure, an information after a success.
///
/// Its ``title``, ``text`` and ``detail`` are redacted whenever they are set, by Transport's
/// one rule (``/Transport/LogRedaction/redactedText(_:)``): a server's message or an error's
/// detail that quotes a credential shows `<redacted>` in its place, whichever presenter draws it.
public struct FeedbackMessage: Sendable, Hashable {
    /// Which of the two it is.
    public enum Severity: String, Sendable, Hashable {
        /// Something failed: ``Warnable``.
        case warning
        /// Something succeeded: ``Informable``.
        case information
    }

    /// Which of the two it is.
    public var severity: Severity
    /// A title for an alert box, when the caller chose one.
    public var title: String? {
        didSet { title = title.map(LogRedaction.redactedText) }
    }
    /// The sentence a person reads.
    public var text: String {
        didSet { text = LogRedaction.redactedText(text) }
    }
    /// What a developer would want too (the transport's own message), when it adds something.
    public var detail: String? {
        didSet { detail = detail.map(LogRedaction.redactedText) }
    }
    /// The business code, when the message is about one.
    public var code: BusinessCode?
    /// The catalog entry the text came from; `nil` when it is the server's own message.
    public var key: MessageKey?

    /// Creates a message.
    public init(
        severity: Severity, title: String? = nil, text: String, detail: String? = nil,
        code: BusinessCode? = nil, key: MessageKey? = nil
    ) {
        self.severity = severity
        self.title = title.map(LogRedaction.redactedText)
        self.text = LogRedaction.redactedText(text)
        self.detail = detail.map(LogRedaction.redactedText)
        self.code = code
        self.key = key
    }
}
