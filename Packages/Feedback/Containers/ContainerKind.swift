/// The kinds of region a console offers, after MBNetwork's containers.
public enum ContainerKind: String, Sendable, Hashable, CaseIterable {
    /// The whole live area (a view controller's view).
    case screen
    /// A titled box (a view).
    case panel
    /// One row of a list or table (a table cell).
    case row
    /// An action line that is disabled while its request runs (a button).
    case button
    /// A "refreshing…" header above a list (a refresh control).
    case refreshHeader
    /// A scrolling log (a scroll view): a mask goes to the nearest region that does not
    /// scroll, and lines printed to the log while it loads are held and printed after.
    case scrollingLog
}
