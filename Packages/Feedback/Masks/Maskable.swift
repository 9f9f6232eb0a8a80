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
