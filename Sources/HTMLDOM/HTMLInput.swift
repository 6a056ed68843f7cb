#if canImport(Glibc)
import Glibc
#endif

/// What libxml2 is given to parse: the HTML as a browser would read it, in the few places
/// where libxml2 (an HTML 4 parser) would read it otherwise or pay for an error at each:
/// - NUL bytes become U+FFFD: libxml2 stops at a NUL in text, and takes leading ones for a
///   sign of UTF-32;
/// - markup a browser ignores is cut (`IgnoredMarkup`);
/// - a '&' that starts no reference is written `&amp;`, the common named references as their
///   characters (`References`); inside script and
///   style, where nothing is decoded, `HTMLStream` hands the text back as written (a tree from
///   `HTMLDocument` keeps the `&amp;` there).
enum HTMLInput {
    static func prepared<R>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        References.prepared(IgnoredMarkup.removed(withoutNUL(bytes))).withUnsafeBufferPointer(body)
    }

    static func withoutNUL(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty, bytes.withUnsafeBytes({ memchr($0.baseAddress!, 0, $0.count) }) != nil else { return bytes }
        var clean: [UInt8] = []
        clean.reserveCapacity(bytes.count + 16)
        for b in bytes {
            if b == 0 { clean += [0xEF, 0xBF, 0xBD] } else { clean.append(b) }
        }
        return clean
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The first `byte` at or after `from`, by memchr.
    func firstIndex(of byte: UInt8, from: Int) -> Int? {
        guard from < count, let hit = memchr(baseAddress! + from, Int32(byte), count - from) else { return nil }
        return UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - baseAddress!
    }

    /// The first `byte` at or after `from` and before `end`, else `end`: memchr searches no
    /// further than `end`.
    func firstIndex(of byte: UInt8, from: Int, before end: Int) -> Int {
        guard from < end, let hit = memchr(baseAddress! + from, Int32(byte), end - from) else { return end }
        return UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - baseAddress!
    }
}
