// swift-tools-version: 6.2
//
// The benchmarks: Parley and its peers (raw libcurl, AsyncHTTPClient, URLSession) on one
// command-line contract, run side by side by `compare.py` (`make bench`). A package of its own,
// as swift-nio keeps its benchmarks, so that AsyncHTTPClient and the BoringSSL under NIO-SSL are
// built only by whoever runs them, never by a package that depends on Parley nor by `make test`.

import PackageDescription

let package = Package(
    name: "ParleyBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-bench", targets: ["parley-bench"]),
        .executable(name: "parley-bench-curl", targets: ["parley-bench-curl"]),
        .executable(name: "parley-bench-ahc", targets: ["parley-bench-ahc"]),
        .executable(name: "parley-bench-urlsession", targets: ["parley-bench-urlsession"]),
        .executable(name: "parley-bench-cache", targets: ["parley-bench-cache"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The root package, named so that the reference holds whatever its folder is called, with
        // the trait that turns on ParleyObservability (the telemetry links' count), and the trait
        // `OpenAPI`, which turns ParleyOpenAPI on for the root package's own builds and tests.
        .package(name: "Parley", path: "../..", traits: ["Observability", "OpenAPI"]),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "BenchmarkSupport"
        ),
        .executableTarget(
            name: "parley-bench",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Forms", package: "Parley"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mapping", package: "Parley"),
                .product(name: "ParleyObservability", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
            ],
            path: "parley-bench"
        ),
        // A C program on libcurl's multi interface: the baseline every ratio is taken against.
        .executableTarget(
            name: "parley-bench-curl",
            path: "parley-bench-curl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "parley-bench-ahc",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "parley-bench-ahc"
        ),
        .executableTarget(
            name: "parley-bench-urlsession",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "parley-bench-urlsession"
        ),
        // Not a peer: what the HTTP cache saves and costs (cache-cost.sh runs it).
        .executableTarget(
            name: "parley-bench-cache",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Caching", package: "Parley"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
            ],
            path: "parley-bench-cache"
        ),
        .testTarget(
            name: "BenchmarkSupportTests",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "BenchmarkSupportTests"
        ),
    ]
)

// MARK: - Shared settings

// The same language settings as the library's manifest; a C target takes none of them.
for target in package.targets where target.name != "parley-bench-curl" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
