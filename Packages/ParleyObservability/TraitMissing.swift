#if !Observability
    // Without the package trait `Observability`, swift-metrics and swift-distributed-tracing are
    // not resolved and the links cannot be built. These stand-ins turn a use of the product
    // without the trait into a compile error that says what to do.

    /// Needs the package trait `Observability`.
    @available(
        *, unavailable,
        message:
            "ParleyObservability needs the package trait Observability: .package(url: ..., from: ..., traits: [\"Observability\"])"
    )
    public struct RequestTelemetry {}

    /// Needs the package trait `Observability`.
    @available(
        *, unavailable,
        message:
            "ParleyObservability needs the package trait Observability: .package(url: ..., from: ..., traits: [\"Observability\"])"
    )
    public struct AttemptTelemetry {}
#endif
