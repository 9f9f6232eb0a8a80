// swift-tools-version: 6.2
//
// WeatherOpenAPI: a client made by swift-openapi-generator from `openapi.yaml` (the mock
// backend's weather and system routes), sending through Parley's `ParleyOpenAPI` transport.
// A package of its own, which nothing of Parley's library depends on: the generator and its
// build plugin are built only by whoever builds this example (`Tools/scripts/openapi-example.sh`,
// run by `make test`, and the OpenAPI benchmark in Tools/Benchmarks/OpenAPIBenchmarks).

import PackageDescription

let package = Package(
    name: "WeatherOpenAPI",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WeatherOpenAPI", targets: ["WeatherOpenAPI"]),
        .executable(name: "weather-openapi", targets: ["weather-openapi"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // The root package with the trait that turns on ParleyOpenAPI, named so that the
        // reference holds whatever the checkout's folder is called.
        .package(name: "Parley", path: "../..", traits: ["OpenAPI"]),
    ],
    targets: [
        // The generated `Client` and its types (the build plugin reads `openapi.yaml` and
        // `openapi-generator-config.yaml` in this folder at every build), and its initialiser
        // on a Parley transport.
        .target(
            name: "WeatherOpenAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "ParleyOpenAPI", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
            ],
            path: "Sources/WeatherOpenAPI",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "weather-openapi",
            dependencies: [
                "WeatherOpenAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Retry", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
            ],
            path: "Sources/weather-openapi"
        ),
    ]
)

// The same language settings as the library's manifest for the hand-written executable. The
// generated target keeps the generator's defaults.
for target in package.targets where target.name == "weather-openapi" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
