/// The ready-made loaders: MBNetwork's `LoadType`.
///
/// ```swift
/// api.forecast(city: "Paris").load(LoadType.default(container: Panel(title: "Paris")))
/// ```
///
/// They present through ``FeedbackSystem/presenter``; ``Loadable/presenting(through:)`` picks
/// another.
public enum LoadType: Loadable {
    /// No mask.
    case none
    /// A ``SpinnerMask`` on `container`.
    case `default`(container: any Containable)
    /// `mask` on `container`.
    case masked(any Maskable, container: any Containable)

    /// The mask of the case.
    public var mask: (any Maskable)? {
        switch self {
        case .none: nil
        case .default: SpinnerMask()
        case .masked(let mask, _): mask
        }
    }

    /// The container of the case.
    public var maskContainer: (any Containable)? {
        switch self {
        case .none: nil
        case .default(let container), .masked(_, let container): container
        }
    }
}
