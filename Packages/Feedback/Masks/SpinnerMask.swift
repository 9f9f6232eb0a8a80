/// A spinner and a text on the container's line.
public struct SpinnerMask: Maskable, Hashable {
    /// The text; `Loading…` by default.
    public var text: String

    /// Creates a spinner mask.
    public init(text: String = "Loading…") {
        self.text = text
    }

    /// `"spinner"`.
    public var maskId: String { "spinner" }
    /// A spinner with ``text``.
    public var appearance: MaskAppearance { MaskAppearance(shape: .spinner, text: text) }
}

extension Maskable where Self == SpinnerMask {
    /// A spinner with `text`.
    public static func spinner(_ text: String = "Loading…") -> SpinnerMask { SpinnerMask(text: text) }
}
