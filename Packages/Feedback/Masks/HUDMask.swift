/// A box centred on the container with a spinner and a text: MBNetwork's HUD.
public struct HUDMask: Maskable, Hashable {
    /// The text; `Loading…` by default.
    public var text: String

    /// Creates a HUD mask.
    public init(text: String = "Loading…") {
        self.text = text
    }

    /// `"hud"`.
    public var maskId: String { "hud" }
    /// A HUD with ``text``.
    public var appearance: MaskAppearance { MaskAppearance(shape: .hud, text: text) }
}

extension Maskable where Self == HUDMask {
    /// A HUD box with `text`.
    public static func hud(_ text: String = "Loading…") -> HUDMask { HUDMask(text: text) }
}
