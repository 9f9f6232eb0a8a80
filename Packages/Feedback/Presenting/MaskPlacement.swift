/// A mask on a container, for one request.
public struct MaskPlacement: Sendable, Hashable {
    /// The request.
    public var activity: ActivityID
    /// The mask's ``Maskable/maskId``.
    public var maskId: String
    /// How the mask looks.
    public var appearance: MaskAppearance
    /// Where it goes (for a scrolling log, already the region that does not scroll).
    public var container: ContainerInfo
    /// Space kept free around it.
    public var inset: Inset

    /// Creates a placement.
    public init(activity: ActivityID, mask: any Maskable, container: ContainerInfo, inset: Inset = .zero) {
        self.activity = activity
        self.maskId = mask.maskId
        self.appearance = mask.appearance
        self.container = container
        self.inset = inset
    }
}
