/// A bar's label and container with a presenter of its own; see
/// ``Progressable/presenting(through:)``.
public struct RoutedProgressable: Progressable {
    /// Whether there is a bar.
    public var showsProgress: Bool
    /// The label.
    public var progressLabel: String
    /// The container.
    public var progressContainer: (any Containable)?
    /// Where the bar is presented.
    public var presenter: any FeedbackPresenter
}
