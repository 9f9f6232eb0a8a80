/// A "refreshing…" header above a list, the console's refresh control.
public struct RefreshHeader: Containable, Hashable {
    /// What the header says while it refreshes; `Refreshing…` by default.
    public var label: String

    /// Creates a header.
    public init(label: String = "Refreshing…") {
        self.label = label
    }

    /// `"refresh:"` and the label.
    public var containerId: String { "refresh:" + label }
    /// ``ContainerKind/refreshHeader``.
    public var containerKind: ContainerKind { .refreshHeader }
    /// ``label``.
    public var containerTitle: String? { label }
}
