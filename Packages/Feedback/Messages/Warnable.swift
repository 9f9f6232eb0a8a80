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
