/// A presenter that shows nothing: the default until ``FeedbackSystem/bootstrap(_:catalog:)``.
public struct DiscardingPresenter: FeedbackPresenter {
    /// Creates the presenter.
    public init() {}
    /// Does nothing.
    public func present(_ event: FeedbackEvent) {}
}
