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

    public static func contains(_ haystack: String, _ needle: String) -> Bool {
        var h = haystack, n = needle
        return h.withUTF8 { hay in
            n.withUTF8 { nd in mp_memmem(hay.baseAddress, hay.count, nd.baseAddress, nd.count) != nil }
        }
    }
}
