/// How a mask looks.
public struct MaskAppearance: Sendable, Hashable {
    /// The drawing a presenter makes.
    public enum Shape: String, Sendable, Hashable {
        /// An animated frame and the text, on the container's line.
        case spinner
        /// A box centred on the container with the animated frame and the text (a HUD).
        case hud
        /// The container's content dimmed, with the text; no animation.
        case dim
    }

    /// The drawing.
    public var shape: Shape
    /// The text beside the animation, such as `Loading…`.
    public var text: String
    /// The animation's frames, shown in turn (about ten a second); at least one.
    public var frames: [String]

    /// The braille dots most terminals draw smoothly.
    public static let dots = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Creates an appearance.
    ///
    /// - Parameters:
    ///   - shape: The drawing.
    ///   - text: The text beside the animation.
    ///   - frames: The animation; ``dots`` by default, and when empty.
    public init(shape: Shape, text: String, frames: [String] = MaskAppearance.dots) {
        self.shape = shape
        self.text = text
        self.frames = frames.isEmpty ? MaskAppearance.dots : frames
    }

    /// The animation frame for tick `tick` (ticks count from 0, ten a second).
    public func frame(at tick: Int) -> String {
        frames[((tick % frames.count) + frames.count) % frames.count]
    }
}
