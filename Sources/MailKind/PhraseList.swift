import UTF8Text

/// Words and phrases matched case-insensitively (ASCII letters fold; other scripts match as
/// written) anywhere in a text, by byte search.
struct PhraseList: Sendable {
    private(set) var phrases: [[UInt8]] = []

    mutating func add(_ phrase: String) {
        let bytes = ASCII.lowercased(Array(phrase.utf8))
        if !bytes.isEmpty && !phrases.contains(bytes) { phrases.append(bytes) }
    }

    /// The first phrase found in `lowered` (already passed through `ASCII.lowercased`).
    func firstMatch(in lowered: [UInt8]) -> String? {
        phrases.first { ByteSearch.contains(lowered, $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first phrase `lowered` begins with.
    func prefixMatch(of lowered: [UInt8]) -> String? {
        phrases.first { lowered.starts(with: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}
