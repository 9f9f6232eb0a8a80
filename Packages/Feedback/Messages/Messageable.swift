public import Transport

/// A type that shows messages to a person: the base of ``Warnable`` and ``Informable``, on
/// Transport's ``/Transport/MessageDescribable`` vocabulary (business codes, success codes,
/// messages, catalog keys), which Mapping's errors and `Errorable` adopt.
///
/// The caller decides which business codes are which with ``successCodes``, as MBNetwork's
/// `successCodes` did: a failure whose code is among them is not warned about, and only a
/// success whose code is among them is announced.
public protocol Messageable: FeedbackSource {
    /// The codes that mean success; `[200]` by default.
    var successCodes: Set<BusinessCode> { get }
    /// The sentences to use; ``FeedbackSystem/catalog`` by default.
    var catalog: MessageCatalog { get }
    /// A title for the alert box; `nil` (the presenter's default) by default.
    var messageTitle: String? { get }
    /// Where messages go: the type itself when it is ``Containable``, otherwise `nil`.
    var messageContainer: (any Containable)? { get }
    /// Shows a message; by default presents it.
    func show(_ message: FeedbackMessage)
}

extension Messageable {
    /// `[200]`.
    public var successCodes: Set<BusinessCode> { [200] }
    /// ``FeedbackSystem/catalog``.
    public var catalog: MessageCatalog { FeedbackSystem.catalog }
    /// `nil`.
    public var messageTitle: String? { nil }
    /// The type itself when it is ``Containable``; `nil` otherwise.
    public var messageContainer: (any Containable)? { self as? any Containable }

    /// Presents `message` in ``messageContainer``, with ``messageTitle`` when it has none.
    public func show(_ message: FeedbackMessage) {
        var message = message
        if message.title == nil { message.title = messageTitle }
        presenter.present(.message(message, container: messageContainer?.containerInfo))
    }
}

/// A type that warns a person when a request fails: MBNetwork's `Warnable`.
///
/// A handle's `warn(_:)` passes the error the handle failed with (never wrapped in a
/// `RequestFailure`) to ``warn(_:)``, whose default turns it into a sentence with
/// ``MessageCatalog/warning(for:successCodes:)`` and shows it:
///
/// - a `BusinessError` (a failure code in a server envelope) shows the server's message, or
///   the catalog's sentence for that code when it has one, unless the code is in
///   ``Messageable/successCodes``;
/// - a `TransportError` shows the catalog's sentence for its category (`The server could not
///   be reached…`), with the transport's own message as the detail;
/// - a `MappingError` shows the sentence for an answer that could not be read;
/// - an error that is itself `Errorable` shows its message when it is a failure;
/// - a cancelled request shows nothing: the person asked for it.
public protocol Warnable: Messageable {
    /// Warns about a failure.
    func warn(_ error: any Error)
}

extension Warnable {
    /// Shows the catalog's warning for `error`, if any.
    public func warn(_ error: any Error) {
        guard let message = catalog.warning(for: error, successCodes: successCodes) else { return }
        show(message)
    }
}

/// A type that tells a person a request succeeded: MBNetwork's `Informable`.
///
/// A handle's `inform(_:)` passes the value to ``inform(_:)``. When the value is `Errorable`
/// (an `EnvelopeHead` from `successOnly()`, or a model of your own that adopts `Errorable`)
/// and its code is one of ``Messageable/successCodes``, the default shows its message (or
/// the catalog's sentence for that code); otherwise it shows ``successMessage`` when there is
/// one.
public protocol Informable: Messageable {
    /// What to say after a success whose value carries no message; `nil` (say nothing) by default.
    var successMessage: String? { get }
    /// Tells the person about a success.
    func inform(_ value: any Sendable)
}

extension Informable {
    /// `nil`.
    public var successMessage: String? { nil }

    /// Shows the catalog's information for `value`, if any.
    public func inform(_ value: any Sendable) {
        guard
            let message = catalog.information(for: value, successCodes: successCodes, fallback: successMessage)
        else { return }
        show(message)
    }
}

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
