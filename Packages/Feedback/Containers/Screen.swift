/// The whole live area: a mask on it is a line (or a box) of its own.
public struct Screen: Containable, Hashable {
    /// The screen; there is one.
    public init() {}
    /// `"screen"`.
    public var containerId: String { "screen" }
    /// ``ContainerKind/screen``.
    public var containerKind: ContainerKind { .screen }
}
