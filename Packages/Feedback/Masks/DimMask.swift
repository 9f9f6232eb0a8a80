/// The container dimmed, with a short text: for a region whose content stays readable while
/// it refreshes.
public struct DimMask: Maskable, Hashable {
    /// The text; `Updating…` by default.
    public var text: String

    /// Creates a dimming mask.
    public init(text: String = "Updating…") {
        self.text = text
    }

    /// `"dim"`.
    public var maskId: String { "dim" }
    /// A dimmed container with ``text``.
    public var appearance: MaskAppearance { MaskAppearance(shape: .dim, text: text, frames: [""]) }
}

extension Maskable where Self == DimMask {
    /// The container dimmed, with `text`.
    public static func dim(_ text: String = "Updating…") -> DimMask { DimMask(text: text) }
}
