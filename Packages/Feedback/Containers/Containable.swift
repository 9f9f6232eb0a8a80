/// A place feedback goes: a region of the screen that a loading mask covers, that messages
/// belong to, that progress bars sit in.
///
/// MBNetwork's containers are views, view controllers, buttons, refresh controls, table cells
/// and scroll views; a console has regions instead, one per ``ContainerKind``. Adopt it on a
/// business type that stands for a part of the screen (a forecast panel, a row of a list), or
/// use the ready-made ``Screen``, ``Panel``, ``ListRow``, ``ActionLine``, ``RefreshHeader`` and
/// ``ScrollingLog``.
///
/// Every requirement but ``containerId`` has a default; even that defaults to the type's name,
/// so a type that stands for one region needs no code at all:
///
/// ```swift
/// struct ForecastPanel: Containable, Loadable {
///     var containerKind: ContainerKind { .panel }
///     var containerTitle: String? { "Forecast" }
/// }
/// ```
public protocol Containable: Sendable {
    /// What identifies the region: masks stack per identifier. The type's name by default.
    var containerId: String { get }
    /// What kind of region this is; ``ContainerKind/panel`` by default.
    var containerKind: ContainerKind { get }
    /// The title or label the region shows; `nil` by default.
    var containerTitle: String? { get }
    /// The region this one sits in; `nil` (the screen) by default. A ``ScrollingLog`` names it:
    /// masks meant for a scrolling region go to the nearest one that does not scroll.
    var enclosingContainer: (any Containable)? { get }
}

extension Containable {
    /// The type's name.
    public var containerId: String { String(describing: Self.self) }
    /// ``ContainerKind/panel``.
    public var containerKind: ContainerKind { .panel }
    /// `nil`.
    public var containerTitle: String? { nil }
    /// `nil`.
    public var enclosingContainer: (any Containable)? { nil }

    /// The container as a value a presenter can keep.
    public var containerInfo: ContainerInfo {
        ContainerInfo(
            id: containerId, kind: containerKind, title: containerTitle,
            maskTargetId: containerKind == .scrollingLog ? maskTarget.containerId : nil)
    }

    /// Where a mask meant for this container goes: itself, or for a scrolling region the
    /// nearest enclosing region that does not scroll (the ``Screen`` when there is none).
    public var maskTarget: any Containable {
        var current: any Containable = self
        // Bounded, so that a container that (wrongly) encloses itself cannot loop.
        for _ in 0..<32 {
            guard current.containerKind == .scrollingLog else { return current }
            guard let next = current.enclosingContainer else { return Screen() }
            current = next
        }
        return Screen()
    }
}
