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
