// swift-tools-version:6.0
import PackageDescription

let tools = ["mime-parse", "html-sanitize", "text-extract", "newsletter-detect", "carrier-detect", "participant-hash", "conversation-group", "event-extract", "event-group", "parcel-group", "chat-render", "mailstore", "mail-compose", "gmail-sync", "mail-thumbnail"]


let package = Package(
    name: "mailpipe",
    // The tools' modules are libraries too, for the fuzzers in Fuzz/ (a package of its own: it
    // is built with -sanitize=fuzzer, which the tools are not)
    products: tools.map { .executable(name: $0, targets: [$0]) }
        + ["Sanitize", "HTMLDOM", "MailParse", "BodyText", "MailKind", "Parcels", "Conversations", "Events", "UnixFilter", "JSONLines",
           "Compose", "MailSubject", "Pictures"]
        .map { .library(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C libraries, reached through pkg-config; only UnicodeServices, HTMLDOM and ICalendar import them.
        .systemLibrary(name: "CICU", path: "Sources/CICU", pkgConfig: "icu-uc",
                       providers: [.apt(["libicu-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),

        // libical alone (its module map links it): pkg-config's libical adds libicalss and
        // libicalvcal, and with them Berkeley DB, for every program to load at each start
        .systemLibrary(name: "CLibical", path: "Sources/CLibical", providers: [.apt(["libical-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // libmagic: FileType opens it (dlopen) at its first use, so it is not linked (no pkg-config)
        .systemLibrary(name: "CMagic", path: "Sources/CMagic", providers: [.apt(["libmagic-dev"])]),
        // libcurl: gmail-sync's HTTP client (only the HTTP module imports it; docs/architecture.md says why libcurl)
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // libvips: the pictures of mail-thumbnail (only the Pictures module imports it; docs/architecture.md says why libvips).
        // Its headers are in the default path, and need glib's: pkg-config's gobject-2.0 gives those (its module map links
        // vips), where pkg-config's vips adds -pthread, which SwiftPM drops with a warning on every build of the package
        .systemLibrary(name: "CVips", path: "Sources/CVips", pkgConfig: "gobject-2.0",
                       providers: [.apt(["libvips-dev"])]),
        .target(name: "CLibcExtras"),
        .target(name: "UTF8Text", dependencies: ["CLibcExtras"]),
        .target(name: "CivilTime"),
        .target(name: "UnicodeServices", dependencies: ["CICU", "UTF8Text"]),
        .target(name: "HTMLDOM", dependencies: ["CLibcExtras", "CLibXML2", "UTF8Text"]),
        .target(name: "ICalendar", dependencies: ["CivilTime", "CLibical", "UnicodeServices"]),
        .target(name: "Hashing", dependencies: ["CCrypto"]),
        .target(name: "FileType", dependencies: ["CMagic"]),
        .target(name: "Pictures", dependencies: ["CVips", "FileType", "Hashing", "JSONLines", "UnixFilter"]),
        .target(name: "JSONLines", dependencies: ["CLibcExtras", "UTF8Text"]),
        .target(name: "UnixFilter", dependencies: [
            "JSONLines", "CLibcExtras", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "MailSubject", dependencies: ["UnixFilter"],
                resources: [.embedInCode("subject-prefixes.json")]),
        .target(name: "MailParse", dependencies: ["CivilTime", "CLibcExtras", "FileType", "UTF8Text", "UnicodeServices", "JSONLines", "Hashing", "MailSubject", "UnixFilter"]),

        .target(name: "Conversations", dependencies: [
            "CivilTime", "UnicodeServices", "JSONLines", "Hashing", "MailSubject", "UnixFilter", "UTF8Text", "Events",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "BodyText", dependencies: ["CivilTime", "HTMLDOM", "MailSubject", "JSONLines", "UnicodeServices", "UnixFilter", "UTF8Text"],
                resources: [.embedInCode("reply-patterns.json")]),

        .target(name: "Sanitize", dependencies: ["HTMLDOM", "JSONLines", "UnixFilter", "UTF8Text"],
                resources: [.embedInCode("trackers.json")]),
        .target(name: "MailKind", dependencies: ["CLibcExtras", "JSONLines", "MailParse", "MailSubject", "UnixFilter", "UTF8Text"],
                resources: [.embedInCode("mail-kind.json")]),
        .target(name: "Parcels", dependencies: ["CivilTime", "CLibcExtras", "JSONLines", "StructuredData", "UnicodeServices", "UnixFilter", "UTF8Text"],
                resources: [.embedInCode("carriers"), .embedInCode("shipment-facts.json")]),

        .target(name: "StructuredData", dependencies: ["HTMLDOM", "JSONLines", "UTF8Text"]),
        .target(name: "Events", dependencies: ["BodyText", "CivilTime", "CLibcExtras", "ICalendar", "JSONLines", "StructuredData", "UnixFilter", "UTF8Text",
                                               .product(name: "ArgumentParser", package: "swift-argument-parser")],
                resources: [.embedInCode("appointment-words.json"), .embedInCode("prescription-words.json")]),

        .target(name: "ChatSite", dependencies: ["CivilTime", "Conversations", "Events", "Hashing", "ICalendar", "JSONLines", "MailStore", "MailSubject", "Parcels", "Sanitize", "UnicodeServices", "UnixFilter", "UTF8Text"],
                resources: [.embedInCode("templates"), .embedInCode("words")]),

        .target(name: "ParcelOptions", dependencies: ["Events", "Parcels", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "MailStore", dependencies: ["BodyText", "CivilTime", "Conversations", "Events", "Hashing", "JSONLines", "MailParse", "Parcels", "SQLite", "UnixFilter", "UTF8Text"]),

        .target(name: "Stages", dependencies: ["BodyText", "Events", "JSONLines", "MailKind", "MailParse", "MailSubject", "Parcels", "Sanitize", "UnixFilter"]),

        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "GmailSync", dependencies: ["ChatSite", "HTTP", "JSONLines", "MailStore", "Stages", "UnixFilter", "UTF8Text"]),

        .target(name: "Compose", dependencies: ["BodyText", "CivilTime", "Conversations", "FileType", "ICalendar", "JSONLines", "MailParse", "MailStore", "MailSubject", "UnixFilter", "UTF8Text"]),

        .executableTarget(name: "mime-parse", dependencies: ["MailParse", "MailSubject", "UnixFilter"]),
        .executableTarget(name: "html-sanitize", dependencies: ["Sanitize", "UnixFilter"]),
        .executableTarget(name: "text-extract", dependencies: ["BodyText", "UnixFilter"]),
        .executableTarget(name: "newsletter-detect", dependencies: ["MailKind", "UnixFilter"]),
        .executableTarget(name: "carrier-detect", dependencies: ["Parcels", "UnixFilter"]),
        .executableTarget(name: "participant-hash", dependencies: ["Conversations", "UnixFilter"]),
        .executableTarget(name: "conversation-group", dependencies: ["Conversations", "Events", "UnixFilter"]),
        .executableTarget(name: "event-extract", dependencies: ["Events", "UnixFilter"]),
        .executableTarget(name: "event-group", dependencies: ["Events", "UnixFilter"]),
        .executableTarget(name: "parcel-group", dependencies: ["ParcelOptions", "Parcels", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "mailstore", dependencies: ["ChatSite", "MailStore", "Conversations", "Events", "JSONLines", "ParcelOptions", "Stages", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "mail-compose", dependencies: ["Compose", "Conversations", "Events", "MailSubject", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "gmail-sync", dependencies: ["Events", "GmailSync", "MailStore", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "mail-thumbnail", dependencies: ["Pictures", "JSONLines", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "chat-render", dependencies: ["ChatSite", "Events", "MailStore", "UnixFilter", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        .testTarget(name: "JSONLinesTests", dependencies: ["JSONLines"]),
        .testTarget(name: "ChatSiteTests", dependencies: ["ChatSite", "ICalendar", "CivilTime", "JSONLines"]),
        .testTarget(name: "UnicodeServicesTests", dependencies: ["UnicodeServices", "UTF8Text"]),
        .testTarget(name: "HTMLDOMTests", dependencies: ["HTMLDOM"]),
        .testTarget(name: "StructuredDataTests", dependencies: ["StructuredData", "JSONLines"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing"]),
        .testTarget(name: "FileTypeTests", dependencies: ["FileType"]),
        .testTarget(name: "PicturesTests", dependencies: ["Pictures"]),
        .testTarget(name: "ComposeTests", dependencies: ["Compose", "Conversations", "JSONLines", "MailParse", "MailSubject", "UTF8Text"]),
        .testTarget(name: "UnixFilterTests", dependencies: ["UnixFilter"]),
        .testTarget(name: "MailParseTests", dependencies: ["MailParse"]),
        .testTarget(name: "MailSubjectTests", dependencies: ["MailSubject"]),
        .testTarget(name: "MailKindTests", dependencies: ["MailKind", "JSONLines"]),
        .testTarget(name: "ParcelsTests", dependencies: ["Parcels", "JSONLines", "UnicodeServices"]),
        .testTarget(name: "ConversationsTests", dependencies: ["Conversations", "JSONLines", "MailSubject", "UTF8Text"]),
        .testTarget(name: "BodyTextTests", dependencies: ["BodyText", "CivilTime", "JSONLines", "UnicodeServices"]),
        .testTarget(name: "SanitizeTests", dependencies: ["Sanitize"]),
        .testTarget(name: "EventsTests", dependencies: ["Events", "ICalendar", "JSONLines", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "MailStoreTests", dependencies: ["MailStore", "SQLite", "JSONLines", "Hashing", "MailParse"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP"]),
        .testTarget(name: "GmailSyncTests", dependencies: ["GmailSync"]),
    ]
)

// Release builds leave out the run-time exclusivity checks (debug builds, and so the unit
// tests, keep them): they cost 4% of mime-parse's time and 9% of text-extract's, on the class
// properties and lazy patterns read in the inner loops. Measured in session 6, see issue 2.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
