// swift-tools-version: 6.2
//
// parley-demo: the whole library at work, against an embedded mock backend that starts by
// itself. A package of its own, so that what the demo is built from (the argument parser, the
// mock server's Hummingbird and SwiftNIO) never reaches a package that depends on Parley's
// library. `make demo` builds and runs it; the root package's DemoTests run the binary that
// `Tools/All` builds (`make tools`).

import PackageDescription

let package = Package(
    name: "ParleyDemo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-demo", targets: ["parley-demo"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `--trace`: the demo's tracer, and the telemetry links of ParleyObservability.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The root package and the mock server, named so that the references hold whatever the
        // checkout's folder is called.
        // The `Observability` trait turns on ParleyObservability.
        .package(name: "Parley", path: "../..", traits: ["Observability"]),
        .package(name: "ParleyMockServer", path: "../../Tools/MockServer"),
    ],
    targets: [
        .executableTarget(
            name: "parley-demo",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Coordination", package: "Parley"),
                .product(name: "Downloads", package: "Parley"),
                .product(name: "Feedback", package: "Parley"),
                .product(name: "FeedbackConsole", package: "Parley"),
                .product(name: "Forms", package: "Parley"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mapping", package: "Parley"),
                .product(name: "ParleyObservability", package: "Parley"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                .product(name: "Retry", package: "Parley"),
                .product(name: "ServerSentEvents", package: "Parley"),
                .product(name: "SystemAPI", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "TransportCurl", package: "Parley"),
                .product(name: "WeatherAPI", package: "Parley"),
            ],
            path: "parley-demo"
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
