import CLibcExtras

/// Words and phrases matched case-insensitively (ASCII letters fold; other scripts match as
/// written) anywhere in a text, by byte search.
struct PhraseList: Sendable {
    private(set) var phrases: [[UInt8]] = []

    mutating func add(_ phrase: String) {
        let bytes = asciiLowercased(Array(phrase.utf8))
        if !bytes.isEmpty && !phrases.contains(bytes) { phrases.append(bytes) }
    }

    /// The first phrase found in `lowered` (already passed through `asciiLowercased`).
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

func asciiLowercased<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count)
    for b in bytes { out.append(b &- 0x41 < 26 ? b | 0x20 : b) }
    return out
}

func asciiLowercased(_ s: String) -> String {
    String(decoding: asciiLowercased(s.utf8), as: UTF8.self)
}

/// Substring search on UTF-8 bytes (String.contains(String) walks grapheme clusters: slow).
func bytesContain(_ haystack: String, _ needle: String) -> Bool {
    var h = haystack, n = needle
    return h.withUTF8 { hay in
        n.withUTF8 { nd in mp_memmem(hay.baseAddress, hay.count, nd.baseAddress, nd.count) != nil }
    }
}
