/// An action line, the console's button: shown disabled while its request runs.
public struct ActionLine: Containable, Hashable {
    /// The action's label, such as `Refresh`.
    public var label: String

    /// Creates an action line.
    public init(label: String) {
        self.label = label
    }

    /// The label.
    public var containerId: String { "action:" + label }
    /// ``ContainerKind/button``.
    public var containerKind: ContainerKind { .button }
    /// ``label``.
    public var containerTitle: String? { label }
}
