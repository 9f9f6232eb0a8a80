// swift-tools-version: 6.1
//
// A package that uses ParleyObservability the way a user does: Parley by a git URL and a
// version, with the package trait `Observability` on. `Tools/scripts/check-consumer.sh` builds
// it after `Tests/Consumer`, sends one request with it, and checks that the trait adds only
// swift-metrics and swift-distributed-tracing to what a user of the core resolves.

import PackageDescription

guard let parleyURL = Context.environment["PARLEY_GIT_URL"] else {
    fatalError("PARLEY_GIT_URL is not set: run Tools/scripts/check-consumer.sh, which sets it to a tagged clone")
}

let package = Package(
    name: "ParleyObservabilityConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: ["Observability"])
    ],
    targets: [
        .executableTarget(
            name: "parley-observability-consumer",
            dependencies: [
                .product(name: "ParleyObservability", package: "parley"),
                .product(name: "Transport", package: "parley"),
                .product(name: "TransportCurl", package: "parley"),
            ],
            path: "Sources/parley-observability-consumer"
        )
    ]
)
