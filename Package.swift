// swift-tools-version: 6.2
//
// Parley: the one manifest of the monorepo.
//
// Targets are grouped by the layers of docs/ARCHITECTURE.md. A target may depend only on
// targets in lower layers; `Tools/check-layering.py` (run by `make test`) fails the build on
// any other edge, so keep this file and the layer table in that script in step.

import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v15)],
    products: [
        // MARK: - Layer 1: Abstractions
        .library(name: "Transport", targets: ["Transport"]),
        // MARK: - Layer 2: Capabilities
        .library(name: "Forms", targets: ["Forms"]),
        .library(name: "Mapping", targets: ["Mapping"]),
        // MARK: - Layer 3: Implementations
        .library(name: "TransportCurl", targets: ["TransportCurl"]),
        .library(name: "TransportTesting", targets: ["TransportTesting"]),
        // MARK: - Layer 5: Apps and tools
        .library(name: "MockBackend", targets: ["MockBackend"]),
        .executable(name: "parley-mock-server", targets: ["parley-mock-server"]),
        .executable(name: "parley-fetch", targets: ["parley-fetch"]),
        .executable(name: "parley-bench", targets: ["parley-bench"]),
        .executable(name: "parley-bench-curl", targets: ["parley-bench-curl"]),
        .executable(name: "parley-bench-ahc", targets: ["parley-bench-ahc"]),
        .executable(name: "parley-bench-urlsession", targets: ["parley-bench-urlsession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        // MARK: - Layer 0: System
        .systemLibrary(
            name: "CCurl",
            path: "Packages/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Packages/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // MARK: - Layer 1: Abstractions
        .target(
            name: "Transport",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/Transport"
        ),

        // MARK: - Layer 2: Capabilities
        .target(
            name: "Forms",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/Forms"
        ),
        .target(
            name: "Mapping",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/Mapping"
        ),

        // MARK: - Layer 3: Implementations
        .target(
            name: "TransportCurl",
            dependencies: [
                "CCurl",
                "CZlib",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/TransportCurl"
        ),
        .target(
            name: "TransportTesting",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/TransportTesting"
        ),

        // MARK: - Layer 5: Apps and tools
        .target(
            name: "MockBackend",
            dependencies: [
                "CZlib",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/MockServer/MockBackend",
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "parley-mock-server",
            dependencies: [
                "MockBackend",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/MockServer/parley-mock-server"
        ),
        .executableTarget(
            name: "parley-fetch",
            dependencies: [
                "Transport",
                "TransportCurl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Fetch"
        ),
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Tools/Benchmarks/BenchmarkSupport"
        ),
        .executableTarget(
            name: "parley-bench",
            dependencies: [
                "BenchmarkSupport",
                "Forms",
                "Mapping",
                "Transport",
                "TransportCurl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/Benchmarks/parley-bench"
        ),
        .executableTarget(
            name: "parley-bench-curl",
            dependencies: ["CCurl"],
            path: "Tools/Benchmarks/parley-bench-curl"
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
            path: "Tools/Benchmarks/parley-bench-ahc"
        ),
        .executableTarget(
            name: "parley-bench-urlsession",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Benchmarks/parley-bench-urlsession"
        ),

        // MARK: - Tests
        .testTarget(
            name: "BenchmarkSupportTests",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Benchmarks/BenchmarkSupportTests"
        ),
        .testTarget(
            name: "FormsTests",
            dependencies: [
                "Forms",
                "Mapping",
                "MockBackend",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FormsTests"
        ),
        .testTarget(
            name: "MappingTests",
            dependencies: [
                "Mapping",
                "Transport",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/MappingTests",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TransportTests",
            dependencies: [
                "Transport",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/TransportTests"
        ),
        .testTarget(
            name: "TransportCurlTests",
            dependencies: [
                "MockBackend",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TransportCurlTests"
        ),
    ]
)

// MARK: - Shared settings

for target in package.targets where target.type != .system {
    if target.type == .executable && target.name == "parley-bench-curl" {
        continue  // A C target: Swift settings do not apply.
    }
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            // `any P` spelled out: the cost of an existential is visible where it is paid.
            .enableUpcomingFeature("ExistentialAny"),
            // A file sees only the modules it imports itself, so the layering check cannot be
            // defeated by a transitive import.
            .enableUpcomingFeature("MemberImportVisibility"),
            // `public import` marks every module that leaks into a public API.
            .enableUpcomingFeature("InternalImportsByDefault"),
            // Warnings are errors here and in CI alike: a warning today is a bug report tomorrow.
            .treatAllWarnings(as: .error),
        ]
}
