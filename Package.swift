// swift-tools-version: 6.2
//
// Parley: the library, one product per module.
//
// Targets are grouped by the layers of `Tools/check-layering.py`, the one layer table (the
// documents' tables are generated from it). A target may depend only on the layers that table
// allows; the script (run by `make test`) fails the build on any other edge.
//
// A package that depends on Parley inherits this manifest, so it declares only what the
// library needs. The tools live in packages of their own (`Tools/Fetch`, `Tools/Benchmarks`,
// `Tools/SoakTest`, `Apps/Demo`) that depend on this one by path, never the reverse, as
// swift-nio keeps its benchmarks and integration tests: `Tools/All` builds them together, and
// the tests that run them as binaries find them in the folder `PARLEY_TOOLS_BIN` names
// (`make test` builds them first). The one tool package this one depends on is the mock server
// (`Tools/MockServer`), which depends on nothing of Parley's. `Tests/Consumer` proves on every
// `make test` that a user resolves none of them.

import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v15)],
    products: [
        // MARK: - Layer 1: Abstractions
        .library(name: "Transport", targets: ["Transport"]),
        // MARK: - Layers 2 to 4: Capabilities, composed capabilities (Downloads, ParleyObservability), the client (Forms)
        .library(name: "Caching", targets: ["Caching"]),
        .library(name: "Coordination", targets: ["Coordination"]),
        .library(name: "Downloads", targets: ["Downloads"]),
        // Metrics and tracing, behind the package trait `Observability` (see `traits` below).
        .library(name: "ParleyObservability", targets: ["ParleyObservability"]),
        // A swift-openapi-runtime `ClientTransport` on any transport, behind the trait `OpenAPI`.
        .library(name: "ParleyOpenAPI", targets: ["ParleyOpenAPI"]),
        .library(name: "Feedback", targets: ["Feedback"]),
        .library(name: "Forms", targets: ["Forms"]),
        // Protocol Buffers bodies (swift-protobuf): message forms, decoding and the envelope, behind
        // the trait `Protobuf`.
        .library(name: "ParleyProtobuf", targets: ["ParleyProtobuf"]),
        .library(name: "Mapping", targets: ["Mapping"]),
        .library(name: "Retry", targets: ["Retry"]),
        .library(name: "ServerSentEvents", targets: ["ServerSentEvents"]),
        // MARK: - Layer 5: Implementations
        .library(name: "FeedbackConsole", targets: ["FeedbackConsole"]),
        .library(name: "FeedbackTesting", targets: ["FeedbackTesting"]),
        .library(name: "TransportCurl", targets: ["TransportCurl"]),
        .library(name: "TransportTesting", targets: ["TransportTesting"]),
        // The transport as a swift-service-lifecycle `Service`, behind the package trait
        // `ServiceLifecycle` (see `traits` below).
        .library(name: "ParleyServiceLifecycle", targets: ["ParleyServiceLifecycle"]),
    ],
    // The metrics and tracing link (`ParleyObservability`) needs swift-metrics and
    // swift-distributed-tracing. A package that depends on Parley resolves every URL dependency
    // of this manifest, used or not, unless a trait it leaves off guards it: behind the trait
    // `Observability`, off by default, a user of the core products still resolves Parley,
    // swift-http-types and swift-log alone, and a user of `ParleyObservability` names the trait:
    // `.package(url: …, from: …, traits: ["Observability"])`. This package's own builds turn
    // every trait on with `--enable-all-traits` (the Makefile's `ROOT_FLAGS`); a plain
    // `swift build` leaves them off and builds the core alone.
    traits: [
        .trait(
            name: "Observability",
            description: "The ParleyObservability product: metrics (swift-metrics) and tracing "
                + "(swift-distributed-tracing) of requests and attempts."
        ),
        // The same way: only a user of `ParleyOpenAPI` resolves swift-openapi-runtime.
        .trait(
            name: "OpenAPI",
            description: "The ParleyOpenAPI product: a ClientTransport of swift-openapi-runtime, so that "
                + "clients made by swift-openapi-generator send through Parley."
        ),
        // The same way: only a user of `ParleyProtobuf` resolves swift-protobuf.
        .trait(
            name: "Protobuf",
            description: "The ParleyProtobuf product: forms that send a Protocol Buffers message (swift-protobuf) "
                + "and handles that decode one, its envelope included."
        ),
        // As `Observability`: a user of `ParleyServiceLifecycle` names the trait, and a user of
        // the core products never resolves swift-service-lifecycle (nor the async algorithms
        // and collections it brings); `Tests/ConsumerServiceLifecycle` checks both.
        .trait(
            name: "ServiceLifecycle",
            description: "The ParleyServiceLifecycle product: CurlTransport as a swift-service-lifecycle "
                + "Service, shut down gracefully with the rest of an application."
        ),
    ],
    dependencies: [
        // The floors are the first releases with every API Parley uses: `HTTPFields` with
        // `Retry-After` and `Content-Range` names (1.0.0), and the `InMemoryLogging` product the
        // tests capture logs with (1.8.0; the library itself needs only `Logger`).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.8.0"),
        // Behind the `Observability` trait. The floors are the releases the link is built and
        // tested with: the tests scope their backends with `withMetricsFactory` (2.13.0) and
        // `withTracer` (1.7.3), and the link names `InstrumentationContext` (1.7.3).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Behind the `OpenAPI` trait; the release the transport is built and tested with.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // Behind the `Protobuf` trait; the release the product is built, generated and tested with.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // Behind the `ServiceLifecycle` trait. The floor is the release the service is built and
        // tested with.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The docs' plugin (`make docs`): a command plugin no target uses, so a package that
        // depends on Parley never resolves it (`make consumer` checks it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The loopback mock server of the tests, in a package of its own (Hummingbird, SwiftNIO):
        // `MockBackend` in process, `parley-mock-server` as a child. It depends on nothing of
        // Parley's, so this is no cycle; the other tools depend on this package, and the tests
        // that run them find them through `PARLEY_TOOLS_BIN` (see the top of this file).
        .package(name: "ParleyMockServer", path: "Tools/MockServer"),
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
            name: "CLibCrypto",
            path: "Packages/CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
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
                .product(name: "HTTPTypes", package: "swift-http-types")
            ],
            path: "Packages/Transport"
        ),

        // MARK: - Layers 2 to 4: Capabilities, composed capabilities (Downloads, ParleyObservability), the client (Forms)
        .target(
            name: "Caching",
            dependencies: [
                "CZlib",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/Caching"
        ),
        .target(
            name: "Coordination",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/Coordination"
        ),
        .target(
            name: "Downloads",
            dependencies: [
                "CLibCrypto",
                "Retry",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/Downloads"
        ),
        .target(
            name: "Feedback",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/Feedback"
        ),
        .target(
            name: "ParleyObservability",
            dependencies: [
                "Caching",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
                .product(
                    name: "Tracing", package: "swift-distributed-tracing",
                    condition: .when(traits: ["Observability"])),
            ],
            path: "Packages/ParleyObservability"
        ),
        .target(
            name: "ParleyOpenAPI",
            dependencies: [
                "Feedback",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Packages/ParleyOpenAPI"
        ),
        .target(
            name: "Forms",
            dependencies: [
                "Caching",
                "Downloads",
                "Retry",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/Forms"
        ),
        // Protocol Buffers bodies, behind the trait `Protobuf`. The `.proto` files sit beside the
        // Swift generated from them (`Tools/scripts/generate-protos.sh`), never generated in a build.
        .target(
            name: "ParleyProtobuf",
            dependencies: [
                "Forms",
                "Mapping",
                "Retry",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: .when(traits: ["Protobuf"])),
            ],
            path: "Packages/ParleyProtobuf",
            exclude: ["Protos"]
        ),
        .target(
            name: "Mapping",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/Mapping"
        ),
        .target(
            name: "Retry",
            dependencies: [
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/Retry"
        ),
        .target(
            name: "ServerSentEvents",
            dependencies: [
                "Retry",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Packages/ServerSentEvents"
        ),

        // MARK: - Layer 5: Implementations
        .target(
            name: "FeedbackConsole",
            dependencies: [
                "Feedback",
                "Retry",
                "Transport",
            ],
            path: "Packages/FeedbackConsole"
        ),
        .target(
            name: "FeedbackTesting",
            dependencies: [
                "Feedback",
                "Transport",
            ],
            path: "Packages/FeedbackTesting"
        ),
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
        // The engine's graceful shutdown as a `Service`, behind the trait `ServiceLifecycle`.
        .target(
            name: "ParleyServiceLifecycle",
            dependencies: [
                "TransportCurl",
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ],
            path: "Packages/ParleyServiceLifecycle"
        ),

        // MARK: - Tests
        // The entries the cache writer stores, for the writer and the tests that read them back.
        .target(
            name: "CacheTestEntries",
            dependencies: [
                "Caching",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/CacheTestEntries"
        ),
        // A child process for the disk cache's crash and restart tests, which kill it with SIGKILL
        // and read what it wrote from other processes. A target, not a product: packages that
        // use Parley never see it.
        .executableTarget(
            name: "parley-cache-writer",
            dependencies: [
                "CacheTestEntries",
                "Caching",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/CacheWriter"
        ),
        // The fuzz targets of the parsers that read bytes from a server or a disk, in one
        // executable that `Tools/scripts/fuzz.sh` (`make fuzz`) builds with libFuzzer and
        // AddressSanitizer. A target, not a product: it reaches the parsers' `package` API, and
        // packages that use Parley never see it. The ordinary build makes it a replayer of inputs.
        .executableTarget(
            name: "parley-fuzz",
            dependencies: [
                "CZlib",
                "Caching",
                "Downloads",
                "Feedback",
                "FeedbackConsole",
                "Mapping",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/Fuzz/Targets"
        ),
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "TransportCurl",
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/ServerTestSupport"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                // For `PThreadMutex`, the lock ThreadSanitizer sees (CONTRIBUTING.md, Locks).
                "Transport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "CachingTests",
            dependencies: [
                "CacheTestEntries",
                "ServerTestSupport",
                "Caching",
                "Forms",
                "TestSupport",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                // Built beside the tests, which run it (and kill it).
                "parley-cache-writer",
            ],
            path: "Tests/CachingTests"
        ),
        .testTarget(
            name: "CoordinationTests",
            dependencies: [
                "ServerTestSupport",
                "Coordination",
                "Feedback",
                "FeedbackTesting",
                "Forms",
                "TestSupport",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/CoordinationTests"
        ),
        .testTarget(
            name: "DemoTests",
            dependencies: [
                "TestSupport",
                .product(name: "MockBackend", package: "ParleyMockServer"),
                // They run `parley-demo` as a person would: built by `Tools/All`, found through
                // `PARLEY_TOOLS_BIN`.
            ],
            path: "Tests/DemoTests"
        ),
        .testTarget(
            name: "DownloadsTests",
            dependencies: [
                "Downloads",
                "Retry",
                "TestSupport",
                "Transport",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/DownloadsTests"
        ),
        .testTarget(
            name: "FeedbackConsoleTests",
            dependencies: [
                "Feedback",
                "FeedbackConsole",
                "FeedbackTesting",
                "Mapping",
                "Retry",
                "TestSupport",
                "Transport",
            ],
            path: "Tests/FeedbackConsoleTests"
        ),
        .testTarget(
            name: "FeedbackTests",
            dependencies: [
                "Feedback",
                "FeedbackTesting",
                "Mapping",
                "TestSupport",
                "Transport",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/FeedbackTests"
        ),
        .testTarget(
            name: "FormsTests",
            dependencies: [
                // Caching and Coordination for the leak test's cache hits and shared requests.
                "Caching",
                "Coordination",
                "Downloads",
                "Forms",
                "Mapping",
                "Retry",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/FormsTests"
        ),
        .testTarget(
            name: "MappingTests",
            dependencies: [
                "Mapping",
                "TestSupport",
                "Transport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/MappingTests",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ParleyObservabilityTests",
            dependencies: [
                "Caching",
                "Downloads",
                "ParleyObservability",
                "Retry",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing",
                    condition: .when(traits: ["Observability"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
                .product(
                    name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Observability"])),
                .product(
                    name: "Tracing", package: "swift-distributed-tracing",
                    condition: .when(traits: ["Observability"])),
            ],
            path: "Tests/ParleyObservabilityTests"
        ),
        .testTarget(
            name: "ParleyOpenAPITests",
            dependencies: [
                "Feedback",
                "FeedbackTesting",
                "ParleyOpenAPI",
                "Retry",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Tests/ParleyOpenAPITests"
        ),
        .testTarget(
            name: "ParleyProtobufTests",
            dependencies: [
                "Feedback",
                "FeedbackTesting",
                "Forms",
                "Mapping",
                "ParleyProtobuf",
                "Retry",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: .when(traits: ["Protobuf"])),
            ],
            path: "Tests/ParleyProtobufTests",
            exclude: ["Protos"]
        ),
        .testTarget(
            name: "ParleyServiceLifecycleTests",
            dependencies: [
                "ParleyServiceLifecycle",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                // The SIGTERM test runs it as a child, with a request in flight.
                .product(name: "parley-mock-server", package: "ParleyMockServer"),
            ],
            path: "Tests/ParleyServiceLifecycleTests"
        ),
        .testTarget(
            name: "RetryTests",
            dependencies: [
                "ServerTestSupport",
                "Mapping",
                "Retry",
                "TestSupport",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/RetryTests"
        ),
        .testTarget(
            name: "ServerSentEventsTests",
            dependencies: [
                "Retry",
                "ServerSentEvents",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/ServerSentEventsTests"
        ),
        .testTarget(
            name: "SoakTests",
            dependencies: [
                // They run `parley-soak`, which runs `parley-mock-server` and `parley-fetch` beside
                // it: all three built by `Tools/All`, found through `PARLEY_TOOLS_BIN`.
                "TestSupport"
            ],
            path: "Tests/SoakTests"
        ),
        .testTarget(
            name: "TransportTests",
            dependencies: [
                "TestSupport",
                "Transport",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/TransportTests"
        ),
        .testTarget(
            name: "TransportCurlTests",
            dependencies: [
                "Downloads",
                "Retry",
                "TestSupport",
                "Transport",
                "TransportCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
                // Built beside the tests, which run it. They run (and kill) `parley-fetch` and
                // `parley-bench` too, built by `Tools/All` and found through `PARLEY_TOOLS_BIN`.
                .product(name: "parley-mock-server", package: "ParleyMockServer"),
            ],
            path: "Tests/TransportCurlTests"
        ),
    ]
)

// MARK: - Layer 6: Features

// Business modules, one line each: the name and the modules it imports, from layers 1 to 4
// only (never the engine or the console; `Tools/check-layering.py` fails on any other edge).
// Each feature gets a library product, a target at `Packages/Features/NAME` and a test target
// at `Tests/NAMETests` that may use the test doubles and the mock server. `make feature
// NAME=X` adds a line here, and `make remove-feature NAME=X` takes it out again.
let features: [(name: String, dependencies: [Target.Dependency])] = [
    (
        "SystemAPI",
        ["Forms", "Mapping", "Retry", "Transport", .product(name: "HTTPTypes", package: "swift-http-types")]
    ),
    (
        "WeatherAPI",
        [
            "Coordination", "Downloads", "Forms", "Mapping", "Retry", "Transport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
]

for feature in features {
    package.products.append(.library(name: feature.name, targets: [feature.name]))
    package.targets.append(
        .target(name: feature.name, dependencies: feature.dependencies, path: "Packages/Features/\(feature.name)"))
    // What a feature's tests may use: the doubles for tests without a server, the mock server
    // and the engine for tests against it.
    package.targets.append(
        .testTarget(
            name: "\(feature.name)Tests",
            dependencies: [
                .target(name: feature.name),
                "Downloads",
                "Feedback",
                "FeedbackTesting",
                "Forms",
                "Mapping",
                "Retry",
                "ServerTestSupport",
                "TestSupport",
                "Transport",
                "TransportCurl",
                "TransportTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MockBackend", package: "ParleyMockServer"),
            ],
            path: "Tests/\(feature.name)Tests"
        )
    )
}

// MARK: - Shared settings

// Build policy such as warnings-as-errors is not set here but by the gate (`make build`,
// `make test`): unsafe flags in a dependency's manifest break builds that pass
// `-suppress-warnings` to dependencies.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            // `any P` spelled out: the cost of an existential is visible where it is paid.
            .enableUpcomingFeature("ExistentialAny"),
            // A file sees only the modules it imports itself, so the layering check cannot be
            // defeated by a transitive import.
            .enableUpcomingFeature("MemberImportVisibility"),
            // `public import` marks every module that leaks into a public API.
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
