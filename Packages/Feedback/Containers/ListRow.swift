/// One row of a list: its label, with the mask beside it.
public struct ListRow: Containable, Hashable {
    /// The row's label, such as a city's name.
    public var label: String
    /// The identifier; the label by default.
    public var id: String

    /// Creates a row.
    public init(label: String, id: String? = nil) {
        self.label = label
        self.id = id ?? label
    }

    /// ``id``.
    public var containerId: String { "row:" + id }
    /// ``ContainerKind/row``.
    public var containerKind: ContainerKind { .row }
    /// ``label``.
    public var containerTitle: String? { label }
}
