/// What covers a container while its request runs: a spinner, a HUD box, a dimmed container,
/// or one of the caller's own.
///
/// A mask has an identity, ``maskId``, as in MBNetwork: presenters and tests tell masks apart
/// by it. Its ``appearance`` says what a presenter draws; a custom mask is a type of your own
/// with its own identifier, text and animation frames:
///
/// ```swift
/// struct MoonMask: Maskable {
///     var maskId: String { "moon" }
///     var appearance: MaskAppearance {
///         MaskAppearance(shape: .spinner, text: "Waiting for the moon…", frames: ["🌑", "🌓", "🌕", "🌗"])
///     }
/// }
/// ```
public protocol Maskable: Sendable {
    /// What identifies the mask.
    var maskId: String { get }
    /// What a presenter draws.
    var appearance: MaskAppearance { get }
}

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

extension Maskable where Self == SpinnerMask {
    /// A spinner with `text`.
    public static func spinner(_ text: String = "Loading…") -> SpinnerMask { SpinnerMask(text: text) }
}

extension Maskable where Self == HUDMask {
    /// A HUD box with `text`.
    public static func hud(_ text: String = "Loading…") -> HUDMask { HUDMask(text: text) }
}

extension Maskable where Self == DimMask {
    /// The container dimmed, with `text`.
    public static func dim(_ text: String = "Updating…") -> DimMask { DimMask(text: text) }
}

/// Space kept free around a mask, in columns: MBNetwork's `inset`.
public struct Inset: Sendable, Hashable {
    /// Columns left free before the mask.
    public var leading: Int
    /// Columns left free after it.
    public var trailing: Int

    /// No inset.
    public static let zero = Inset(leading: 0, trailing: 0)

    /// Creates an inset; negative values count as zero.
    public init(leading: Int = 0, trailing: Int = 0) {
        self.leading = max(0, leading)
        self.trailing = max(0, trailing)
    }
}
