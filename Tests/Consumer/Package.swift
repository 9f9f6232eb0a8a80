// swift-tools-version: 6.0
//
// A package that uses Parley the way a user does: by a git URL and a version, never by a
// path, which would hide what only remote users meet (what SwiftPM resolves for them, tags,
// files missing from the repository). `Tools/scripts/check-consumer.sh` clones the checkout,
// tags the clone, passes its `file://` URL in PARLEY_GIT_URL, builds this package, sends one
// request with it and compares the packages it resolved with the list in the README.

import PackageDescription

guard let parleyURL = Context.environment["PARLEY_GIT_URL"] else {
    fatalError("PARLEY_GIT_URL is not set: run Tools/scripts/check-consumer.sh, which sets it to a tagged clone")
}

let package = Package(
    name: "ParleyConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0")
    ],
    targets: [
        .executableTarget(
            name: "parley-consumer",
            dependencies: [
                .product(name: "Forms", package: "parley"),
                .product(name: "Mapping", package: "parley"),
                .product(name: "TransportCurl", package: "parley"),
            ],
            path: "Sources/parley-consumer"
        )
    ]
)
