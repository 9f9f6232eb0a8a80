/// A titled box: a mask is drawn inside it, under the title.
public struct Panel: Containable, Hashable {
    /// The title the box shows.
    public var title: String
    /// The identifier; the title by default.
    public var id: String

    /// Creates a panel.
    ///
    /// - Parameters:
    ///   - title: The title the box shows.
    ///   - id: What identifies it when two panels share a title; the title by default.
    public init(title: String, id: String? = nil) {
        self.title = title
        self.id = id ?? title
    }

    /// ``id``.
    public var containerId: String { "panel:" + id }
    /// ``ContainerKind/panel``.
    public var containerKind: ContainerKind { .panel }
    /// ``title``.
    public var containerTitle: String? { title }
}
