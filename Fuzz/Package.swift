// swift-tools-version:6.0
// libFuzzer targets: html-sanitize's sanitizer, every filter as a whole (mailpipe-fuzz, the
// filter chosen by MAILPIPE_FUZZ_TARGET), mail-compose's request reader and writer
// (mail-compose-fuzz), mime-parse's parameter and filename reader and its safe names
// (attachment-name-fuzz), and mail-thumbnail's picture reader (pictures-fuzz). `make fuzz` builds them with -sanitize=fuzzer and runs
// each on a seed corpus made from ../shared.
import PackageDescription

let package = Package(
    name: "mailpipe-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(name: "html-sanitize-fuzz", dependencies: ["CFuzzer", .product(name: "Sanitize", package: "main"),
                                                                     .product(name: "HTMLDOM", package: "main")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "mailpipe-fuzz",
                          dependencies: ["CFuzzer"] + ["Sanitize", "MailParse", "BodyText", "MailKind", "Parcels", "Conversations",
                                                       "Events", "UnixFilter", "JSONLines"].map { .product(name: $0, package: "main") },
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "attachment-name-fuzz",
                          dependencies: ["CFuzzer"] + ["JSONLines", "MailParse"].map { .product(name: $0, package: "main") },
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "mail-compose-fuzz",
                          dependencies: ["CFuzzer"] + ["Compose", "Conversations", "JSONLines", "MailParse", "MailSubject"]
                            .map { .product(name: $0, package: "main") },
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "pictures-fuzz", dependencies: ["CFuzzer", .product(name: "Pictures", package: "main")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
