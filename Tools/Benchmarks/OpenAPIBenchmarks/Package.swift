// swift-tools-version: 6.2
//
// The OpenAPI benchmark: the client that swift-openapi-generator makes for
// Examples/WeatherOpenAPI, on Parley (`OpenAPITransport` over `CurlTransport`) and on
// swift-openapi-async-http-client (`AsyncHTTPClientTransport`), side by side in one process
// against one mock server. A package of its own, which nothing references: the generator's
// plugin and AsyncHTTPClient are built only by whoever runs it.
//
//   swift build -c release --package-path Tools/Benchmarks/OpenAPIBenchmarks
//   parley-mock-server &     # prints "listening on http://127.0.0.1:PORT"
//   Tools/Benchmarks/OpenAPIBenchmarks/.build/release/parley-bench-openapi http://127.0.0.1:PORT

import PackageDescription

let package = Package(
    name: "ParleyOpenAPIBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-bench-openapi", targets: ["parley-bench-openapi"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", exact: "1.5.0"),
        // The generated client, and the root package with the trait its transport needs.
        .package(name: "WeatherOpenAPI", path: "../../../Examples/WeatherOpenAPI"),
        .package(name: "Parley", path: "../../..", traits: ["OpenAPI"]),
    ],
    targets: [
        .executableTarget(
            name: "parley-bench-openapi",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
                .product(name: "WeatherOpenAPI", package: "WeatherOpenAPI"),
            ],
            path: "parley-bench-openapi"
        )
    ]
)

// The same language settings as the library's manifest.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
