// swift-tools-version: 6.1
//
// A package that uses ParleyOpenAPI the way a user does: Parley by a git URL and a version,
// with the package trait `OpenAPI` on. `Tools/scripts/check-consumer.sh` builds it after
// `Tests/Consumer`, sends one request with it, and checks that the trait adds only
// swift-openapi-runtime to what a user of the core resolves.

import PackageDescription

guard let parleyURL = Context.environment["PARLEY_GIT_URL"] else {
    fatalError("PARLEY_GIT_URL is not set: run Tools/scripts/check-consumer.sh, which sets it to a tagged clone")
}

let package = Package(
    name: "ParleyOpenAPIConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: ["OpenAPI"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        .executableTarget(
            name: "parley-openapi-consumer",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "ParleyOpenAPI", package: "parley"),
                .product(name: "TransportCurl", package: "parley"),
            ],
            path: "Sources/parley-openapi-consumer"
        )
    ]
)
