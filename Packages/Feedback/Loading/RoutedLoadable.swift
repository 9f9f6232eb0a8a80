/// A loader's mask, inset and container with a presenter of its own; see
/// ``Loadable/presenting(through:)``.
public struct RoutedLoadable: Loadable {
    /// The mask.
    public var mask: (any Maskable)?
    /// The inset.
    public var inset: Inset
    /// The container.
    public var maskContainer: (any Containable)?
    /// Where the mask is presented.
    public var presenter: any FeedbackPresenter
}
