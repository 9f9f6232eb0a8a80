// swift-tools-version: 6.2
//
// The mock server: a package of its own, so that what it is built from (Hummingbird, SwiftNIO,
// MultipartKit) never reaches a package that depends on Parley's library. Parley's tests use
// `MockBackend` in process; `parley-mock-server` serves it on a port of your choice.
//
// It depends on nothing of the client it serves, not even the root package, so a test can
// trust what it reports about the bytes it received.

import PackageDescription

let package = Package(
    name: "ParleyMockServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MockBackend", targets: ["MockBackend"]),
        .executable(name: "parley-mock-server", targets: ["parley-mock-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // `parley-mock-server`'s graceful shutdown on SIGTERM and SIGINT (Hummingbird's
        // application is a `Service`).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CMockServerSystem",
            path: "CMockServerSystem",
            providers: [.apt(["libssl-dev", "zlib1g-dev"])]
        ),
        .target(
            name: "MockBackend",
            dependencies: [
                "CMockServerSystem",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                // NIOLockedValueBox: a lock on pthread_mutex_t, which ThreadSanitizer sees (the
                // library's PThreadMutex is `package`, out of reach of this package).
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The HTTP/1 encoder, below which `/resumable` writes its `104` interim response.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "MockBackend",
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "parley-mock-server",
            dependencies: [
                "MockBackend",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "parley-mock-server"
        ),
    ]
)

// MARK: - Shared settings

// The same language settings as the library's manifest; warnings are errors through the gate.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
