// swift-tools-version: 6.1
//
// A package that uses ParleyServiceLifecycle the way a user does: Parley by a git URL and a
// version, with the package trait `ServiceLifecycle` on. `Tools/scripts/check-consumer.sh`
// builds it after `Tests/ConsumerObservability`, sends one request with it in a ServiceGroup,
// and checks that the trait adds only swift-service-lifecycle (and the two packages it
// depends on, swift-async-algorithms and swift-collections) to what a user of the core
// resolves. It names swift-service-lifecycle and swift-log itself, for `ServiceGroup` and
// `Logger`: packages it resolves either way.

import PackageDescription

guard let parleyURL = Context.environment["PARLEY_GIT_URL"] else {
    fatalError("PARLEY_GIT_URL is not set: run Tools/scripts/check-consumer.sh, which sets it to a tagged clone")
}

let package = Package(
    name: "ParleyServiceLifecycleConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: ["ServiceLifecycle"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "parley-service-lifecycle-consumer",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ParleyServiceLifecycle", package: "parley"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Transport", package: "parley"),
                .product(name: "TransportCurl", package: "parley"),
            ],
            path: "Sources/parley-service-lifecycle-consumer"
        )
    ]
)
