#if !Protobuf
    // Without the package trait `Protobuf`, swift-protobuf is not resolved and the product
    // cannot be built. These stand-ins turn a use of the product without the trait into a
    // compile error that says what to do.

    /// Needs the package trait `Protobuf`.
    @available(
        *, unavailable,
        message:
            "ParleyProtobuf needs the package trait Protobuf: .package(url: ..., from: ..., traits: [\"Protobuf\"])"
    )
    public struct MessageDecoder {}

    /// Needs the package trait `Protobuf`.
    @available(
        *, unavailable,
        message:
            "ParleyProtobuf needs the package trait Protobuf: .package(url: ..., from: ..., traits: [\"Protobuf\"])"
    )
    public protocol MessageFormable {}
#endif
