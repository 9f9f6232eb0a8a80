/// A type that reports feedback: the base of every Feedback protocol.
public protocol FeedbackSource: Sendable {
    /// Where this type's feedback goes; ``FeedbackSystem/presenter`` by default.
    var presenter: any FeedbackPresenter { get }
}

extension FeedbackSource {
    /// ``FeedbackSystem/presenter``.
    public var presenter: any FeedbackPresenter { FeedbackSystem.presenter }
}
