#if !OpenAPI
    // Without the package trait `OpenAPI`, swift-openapi-runtime is not resolved and the
    // transport cannot be built. These stand-ins turn a use of the product without the trait
    // into a compile error that says what to do.

    /// Needs the package trait `OpenAPI`.
    @available(
        *, unavailable,
        message: "ParleyOpenAPI needs the package trait OpenAPI: .package(url: ..., from: ..., traits: [\"OpenAPI\"])"
    )
    public struct OpenAPITransport {}

    /// Needs the package trait `OpenAPI`.
    @available(
        *, unavailable,
        message: "ParleyOpenAPI needs the package trait OpenAPI: .package(url: ..., from: ..., traits: [\"OpenAPI\"])"
    )
    public struct OpenAPIFeedback {}
#endif
