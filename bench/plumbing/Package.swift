// swift-tools-version:6.0
// The pipeline's plumbing alone, for bench/pipeline.sh: null-filter reads records as every
// filter does (UnixFilter's filterRecords, JSONRecord) and writes each back unchanged.
// bench/pipeline.sh builds it from a folder beside a link named `main` to the checkout (the
// name this manifest knows the package by).
import PackageDescription

let package = Package(
    name: "mailpipe-plumbing",
    dependencies: [.package(path: "../main"), .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")],
    targets: [
        .executableTarget(name: "null-filter", dependencies: ["UnixFilter", "JSONLines"].map { .product(name: $0, package: "main") }
                          + [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ]
)
