/// A transport failure is described by its category: `transport.` and the category's name,
/// then `network`, the sentence for any failure of the network.
extension TransportError: MessageDescribable {
    /// `transport.` and the ``category``'s name, then `network`.
    public var messageKeys: [String] { [category.messageKey, "network"] }
}
