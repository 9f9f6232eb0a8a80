/// A container as a value: what presenters keep of a ``Containable``.
public struct ContainerInfo: Sendable, Hashable, Identifiable {
    /// The container's identifier.
    public var id: String
    /// Its kind.
    public var kind: ContainerKind
    /// Its title or label.
    public var title: String?
    /// For a scrolling log, the identifier of the region its masks go to (and whose masks
    /// hold its lines back); `nil` for other kinds.
    public var maskTargetId: String?

    /// Creates the value.
    public init(id: String, kind: ContainerKind, title: String? = nil, maskTargetId: String? = nil) {
        self.id = id
        self.kind = kind
        self.title = title
        self.maskTargetId = maskTargetId
    }
}
