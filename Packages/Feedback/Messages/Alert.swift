public import Transport

/// The ready-made warning: MBNetwork's `WarnType`, an alert box with a title.
public struct Alert: Warnable, Informable {
    /// The title of the box; `nil` for the presenter's default.
    public var title: String?
    /// Where messages go; `nil` for ``FeedbackSystem/presenter``.
    public var chosenPresenter: (any FeedbackPresenter)?
    /// The sentences; `nil` for ``FeedbackSystem/catalog``.
    public var chosenCatalog: MessageCatalog?
    /// The codes that mean success.
    public var successCodes: Set<BusinessCode>
    /// What to say after a success with no message of its own.
    public var successMessage: String?

    /// Creates an alert.
    ///
    /// - Parameters:
    ///   - title: The box's title; the presenter's default (`Warning`, `Done`) when `nil`.
    ///   - successCodes: The codes that mean success; `[200]` by default.
    ///   - successMessage: What ``inform(_:)`` says after a success with no message of its own.
    ///   - presenter: Where messages go; the bootstrapped presenter by default.
    ///   - catalog: The sentences; the bootstrapped catalog by default.
    public init(
        title: String? = nil, successCodes: Set<BusinessCode> = [200], successMessage: String? = nil,
        presenter: (any FeedbackPresenter)? = nil, catalog: MessageCatalog? = nil
    ) {
        self.title = title
        self.successCodes = successCodes
        self.successMessage = successMessage
        self.chosenPresenter = presenter
        self.chosenCatalog = catalog
    }

    /// ``title``.
    public var messageTitle: String? { title }
    /// The chosen presenter, or ``FeedbackSystem/presenter``.
    public var presenter: any FeedbackPresenter { chosenPresenter ?? FeedbackSystem.presenter }
    /// The chosen catalog, or ``FeedbackSystem/catalog``.
    public var catalog: MessageCatalog { chosenCatalog ?? FeedbackSystem.catalog }
}
