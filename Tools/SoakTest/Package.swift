// swift-tools-version: 6.2
//
// parley-soak: hours of traffic through the business layer (forms, `Requestable`, the
// envelope, retries) on `CurlTransport`, against `parley-mock-server` with its chaos on, and
// resumable downloads killed and resumed; it fails on a request lost, hung or applied twice,
// and on memory, descriptors or threads that grow. A package of its own, so that its argument
// parser never reaches a package that depends on Parley's library. `make soak` runs it in full;
// the root package's `SoakTests` run a short version on every `make test`, of the build
// `Tools/All` makes. The folder is not
// called `Soak`: SwiftPM names a path dependency after its folder, and a checkout of Parley in a
// folder called `soak` would then depend on itself.

import PackageDescription

let package = Package(
    name: "ParleySoak",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-soak", targets: ["parley-soak"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.8.0"),
        // The root package, named so that the reference holds whatever its folder is called.
        .package(name: "Parley", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "parley-soak",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Downloads", package: "Parley"),
                .product(name: "Forms", package: "Parley"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mapping", package: "Parley"),
                .product(name: "Retry", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
                .product(name: "WeatherAPI", package: "Parley"),
            ],
            path: "parley-soak"
        )
    ]
)

// MARK: - Shared settings

// The same language settings as the library's manifest; warnings are errors through the gate.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
