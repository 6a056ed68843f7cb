import CLibcExtras
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
        lowered.withUnsafeBytes { hay in
            for p in phrases {
                let found = p.withUnsafeBytes { needle in
                    mp_memmem(hay.baseAddress, hay.count, needle.baseAddress, needle.count) != nil
                }
                if found { return String(decoding: p, as: UTF8.self) }
            }
            return nil
        }
    }

    /// The first phrase `lowered` begins with.
    func prefixMatch(of lowered: [UInt8]) -> String? {
        phrases.first { lowered.starts(with: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Substring search on UTF-8 bytes (String.contains(String) walks grapheme clusters: slow).
func bytesContain(_ haystack: String, _ needle: String) -> Bool {
    var h = haystack, n = needle
    return h.withUTF8 { hay in
        n.withUTF8 { nd in mp_memmem(hay.baseAddress, hay.count, nd.baseAddress, nd.count) != nil }
    }
}
