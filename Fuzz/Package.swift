// swift-tools-version:6.0
// libFuzzer target over html-sanitize's sanitizer: `make fuzz` builds it with -sanitize=fuzzer
// and runs it on a seed corpus made from ../shared's HTML.
import PackageDescription

let package = Package(
    name: "mailpipe-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(name: "html-sanitize-fuzz", dependencies: ["CFuzzer", .product(name: "Sanitize", package: "main")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
