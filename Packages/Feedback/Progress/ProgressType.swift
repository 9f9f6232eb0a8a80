/// The ready-made progress bars; they present through ``FeedbackSystem/presenter`` unless
/// ``Progressable/presenting(through:)`` picks another.
public enum ProgressType: Progressable {
    /// No bar.
    case none
    /// A bar labelled `label` on the screen.
    case bar(label: String)

    /// `false` for ``none``.
    public var showsProgress: Bool {
        if case .none = self { return false }
        return true
    }

    /// The label of the bar.
    public var progressLabel: String {
        switch self {
        case .none: ""
        case .bar(let label): label
        }
    }

    /// The screen.
    public var progressContainer: (any Containable)? { nil }
}
