import CLibcExtras

/// Substring search on UTF-8 bytes with memmem: String.contains(String) walks grapheme
/// clusters and is many times slower, and case-folded text is bytes already.
public enum ByteSearch {
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { contains($0, needle) }
    }

    public static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        needle.withUnsafeBytes { n in mp_memmem(haystack.baseAddress, haystack.count, n.baseAddress, n.count) != nil }
    }

    /// Whether `a` or `b` occurs, in one pass over `haystack`.
    public static func containsEither(_ haystack: UnsafeBufferPointer<UInt8>, _ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in mp_contains_either(haystack.baseAddress, haystack.count, a.baseAddress, a.count, b.baseAddress, b.count) != 0 }
        }
    }

    public static func contains(_ haystack: String, _ needle: String) -> Bool {
        var h = haystack, n = needle
        return h.withUTF8 { hay in
            n.withUTF8 { nd in mp_memmem(hay.baseAddress, hay.count, nd.baseAddress, nd.count) != nil }
        }
    }

    /// The first place of `needle` in `hay` at or after `from`; with `ignoringASCIICase`, ASCII
    /// letters match in either case (HTML's tag names: `</SCRIPT`).
    public static func firstIndex(of needle: [UInt8], in hay: [UInt8], from: Int, ignoringASCIICase: Bool = false) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        if !ignoringASCIICase {
            guard from < hay.count else { return nil }
            return hay.withUnsafeBytes { h in
                needle.withUnsafeBytes { n in
                    mp_memmem(h.baseAddress! + from, h.count - from, n.baseAddress, n.count).map { h.baseAddress!.distance(to: UnsafeRawPointer($0)) }
                }
            }
        }
        var i = max(from, 0)
        while i <= hay.count - needle.count {
            var k = 0
            while k < needle.count {
                let a = hay[i + k], b = needle[k]
                if a != b && !((a | 0x20) == (b | 0x20) && (b | 0x20) &- 0x61 < 26) { break }
                k += 1
            }
            if k == needle.count { return i }
            i += 1
        }
        return nil
    }
}
