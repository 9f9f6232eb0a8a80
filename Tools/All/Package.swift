// swift-tools-version: 6.2
//
// Parley's command-line tools, built together in one build folder: `parley-demo`,
// `parley-fetch`, `parley-bench`, `parley-soak` and `parley-mock-server`. Each lives in a
// package of its own that depends on the library by path; the library never depends on them
// (a path dependency back would be a cycle, on which SwiftPM 6.3 crashes when it runs a
// command plugin such as the docs'). This package declares nothing but them, so that one build
// makes them all, side by side, with the library once:
//
//   swift build --package-path Tools/All --scratch-path .build/tools    # what `make tools` runs
//
// The library's tests that run them as binaries (DemoTests, SoakTests, some TransportCurlTests)
// find them in the folder `PARLEY_TOOLS_BIN` names, `.build/tools/debug` by default; the soak
// finds the mock server and the downloader beside itself there.

import PackageDescription

let package = Package(
    name: "ParleyTools",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley-tools", targets: ["parley-tools"])
    ],
    dependencies: [
        // Named so that the references hold whatever the checkout's folders are called.
        .package(name: "ParleyBenchmarks", path: "../Benchmarks"),
        .package(name: "ParleyDemo", path: "../../Apps/Demo"),
        .package(name: "ParleyFetch", path: "../Fetch"),
        .package(name: "ParleyMockServer", path: "../MockServer"),
        .package(name: "ParleySoak", path: "../SoakTest"),
    ],
    targets: [
        // Depends on the tools, so that building it (the default build) builds them; it only
        // lists them. Of the benchmarks, `parley-bench` alone: its peers (AsyncHTTPClient,
        // BoringSSL) are built by `make bench` only.
        .executableTarget(
            name: "parley-tools",
            dependencies: [
                .product(name: "parley-bench", package: "ParleyBenchmarks"),
                .product(name: "parley-demo", package: "ParleyDemo"),
                .product(name: "parley-fetch", package: "ParleyFetch"),
                .product(name: "parley-mock-server", package: "ParleyMockServer"),
                .product(name: "parley-soak", package: "ParleySoak"),
            ],
            path: "parley-tools"
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
