#if canImport(Glibc)
import Glibc
#endif

/// A '&' that starts no reference (`?a=1&b=2` in a link, "Q&A" in text) written as `&amp;`
/// before parsing. libxml2 reads both the same way, as a literal '&', but for the bare one it
/// first raises, formats and stores an error; newsletters have thousands of them (writing them
/// `&amp;` took html-sanitize from 0.37 to 0.33 s on bench/html-sanitize.py's 18 MB).
/// References with their ';' (`&amp;`, `&#38;`, `&nbsp;`) are left as they are. Inside script
/// and style, where libxml2 decodes nothing, `HTMLStream` turns `&amp;` back into '&'.
enum BareAmpersands {
    static func escaped(_ html: [UInt8]) -> [UInt8] {
        html.withUnsafeBufferPointer { p -> [UInt8] in
            guard let base = p.baseAddress else { return html }
            var out: [UInt8] = []
            var copied = 0
            var i = 0
            while i < p.count, let hit = memchr(base + i, Int32(UInt8(ascii: "&")), p.count - i) {
                let amp = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                i = amp + 1
                if startsReference(p, at: i) { continue }
                if out.isEmpty { out.reserveCapacity(p.count + p.count / 16) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<amp]))
                out += "&amp;".utf8
                copied = amp + 1
            }
            guard copied > 0 else { return html }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied...]))
            return out
        }
    }

    /// Whether the bytes after a '&' make a reference libxml2 reads as one: '#', or a name
    /// closed by ';'.
    private static func startsReference(_ p: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start < p.count else { return false }
        if p[start] == UInt8(ascii: "#") { return true }
        var j = start
        while j < p.count, j - start < 32, isNameByte(p[j]) { j += 1 }
        return j > start && j < p.count && p[j] == UInt8(ascii: ";")
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b >= 0x30 && b <= 0x39
    }

    /// Style text as written: `&amp;` back to '&'.
    static func unescaped(_ css: [UInt8]) -> [UInt8] {
        guard css.contains(UInt8(ascii: "&")) else { return css }
        var out: [UInt8] = []
        out.reserveCapacity(css.count)
        var i = 0
        while i < css.count {
            if css[i] == UInt8(ascii: "&"), css[i...].starts(with: "&amp;".utf8) {
                out.append(UInt8(ascii: "&"))
                i += 5
            } else {
                out.append(css[i])
                i += 1
            }
        }
        return out
    }
}
