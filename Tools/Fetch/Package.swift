// swift-tools-version: 6.2
//
// parley-fetch, a resumable download from the command line: `FileDownload` on
// `CurlTransport`. A package of its own so that its argument parser never reaches a package
// that depends on Parley's library. The library's crash tests kill it mid-download: `Tools/All`
// builds it for them (`make tools`).

import PackageDescription

let package = Package(
    name: "ParleyFetch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-fetch", targets: ["parley-fetch"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The root package, named so that the reference holds whatever its folder is called.
        .package(name: "Parley", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "parley-fetch",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Downloads", package: "Parley"),
                .product(name: "Feedback", package: "Parley"),
                .product(name: "FeedbackConsole", package: "Parley"),
                .product(name: "Retry", package: "Parley"),
                .product(name: "Transport", package: "Parley"),
                .product(name: "TransportCurl", package: "Parley"),
            ],
            path: "parley-fetch"
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
