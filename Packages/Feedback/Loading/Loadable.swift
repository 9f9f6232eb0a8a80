/// A type that shows a loading mask while its requests run: MBNetwork's `Loadable`.
///
/// Adopt it, and hand the value to a handle's `load(_:)`:
///
/// ```swift
/// struct ForecastScreen: Containable, Loadable, Warnable {}
/// let screen = ForecastScreen()
/// let forecast = try await api.forecast(city: "Toronto").load(screen).warn(screen).value
/// ```
///
/// Every requirement has a default: a ``SpinnerMask`` on ``maskContainer`` (the type itself
/// when it is ``Containable``, the ``Screen`` otherwise), no inset, and ``begin(_:)`` /
/// ``end(_:outcome:)`` that hand the mask to the presenter. Masks stack per container: each
/// running request adds its own, each finished request removes its own, and the container is
/// clear when the last one ends. Return `nil` from ``mask`` for no mask at all.
public protocol Loadable: FeedbackSource {
    /// What covers the container; a ``SpinnerMask`` by default.
    var mask: (any Maskable)? { get }
    /// Space kept free around the mask; ``Inset/zero`` by default.
    var inset: Inset { get }
    /// Where the mask goes: the type itself when it is ``Containable``, otherwise `nil`,
    /// which means the ``Screen``.
    var maskContainer: (any Containable)? { get }
    /// Puts the mask on for one request; runs when the request starts.
    func begin(_ activity: ActivityID)
    /// Takes the request's mask off; runs when the request has finished, before the handle's
    /// later handlers.
    func end(_ activity: ActivityID, outcome: ActivityOutcome)
    /// Tells the person the request is about to be sent again.
    func maskRetrying(_ activity: ActivityID, notice: RetryNotice)
}

extension Loadable {
    /// A ``SpinnerMask``.
    public var mask: (any Maskable)? { SpinnerMask() }
    /// ``Inset/zero``.
    public var inset: Inset { .zero }
    /// The type itself when it is ``Containable``; `nil` otherwise.
    public var maskContainer: (any Containable)? { self as? any Containable }

    /// Presents ``mask`` on ``maskContainer`` (its ``Containable/maskTarget``); nothing when
    /// there is no mask.
    public func begin(_ activity: ActivityID) {
        guard let mask else { return }
        let container = (maskContainer ?? Screen()).maskTarget
        presenter.present(
            .maskBegan(MaskPlacement(activity: activity, mask: mask, container: container.containerInfo, inset: inset)))
    }

    /// Presents the end of the request's mask (always: a presenter ignores the end of a mask
    /// it never saw, and a mask that changed since ``begin(_:)`` must still come off).
    public func end(_ activity: ActivityID, outcome: ActivityOutcome) {
        presenter.present(.maskEnded(activity, outcome: outcome))
    }

    /// Presents the notice beside the request's mask.
    public func maskRetrying(_ activity: ActivityID, notice: RetryNotice) {
        guard mask != nil else { return }
        presenter.present(.retrying(activity, notice))
    }
}

extension Loadable {
    /// This loader's mask, inset and container, presented through `presenter` instead of
    /// ``FeedbackSource/presenter``: for a ready-made loader such as ``LoadType`` in a test with a recorder of
    /// its own, or on a second console.
    ///
    /// The returned loader uses the default ``begin(_:)``, ``end(_:outcome:)`` and
    /// ``maskRetrying(_:notice:)``.
    public func presenting(through presenter: any FeedbackPresenter) -> RoutedLoadable {
        RoutedLoadable(mask: mask, inset: inset, maskContainer: maskContainer, presenter: presenter)
    }
}
