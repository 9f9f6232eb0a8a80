// swift-tools-version: 6.1
//
// A package that uses ParleyProtobuf the way a user does: Parley by a git URL and a version,
// with the package trait `Protobuf` on. `Tools/scripts/check-consumer.sh` builds it after
// `Tests/ConsumerOpenAPI`, sends one request with it, and checks that the trait adds only
// swift-protobuf to what a user of the core resolves.

import PackageDescription

guard let parleyURL = Context.environment["PARLEY_GIT_URL"] else {
    fatalError("PARLEY_GIT_URL is not set: run Tools/scripts/check-consumer.sh, which sets it to a tagged clone")
}

let package = Package(
    name: "ParleyProtobufConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: ["Protobuf"]),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        .executableTarget(
            name: "parley-protobuf-consumer",
            dependencies: [
                .product(name: "Forms", package: "parley"),
                .product(name: "ParleyProtobuf", package: "parley"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "TransportCurl", package: "parley"),
            ],
            path: "Sources/parley-protobuf-consumer"
        )
    ]
)
