#if canImport(Glibc)
import Glibc
#endif

/// Character references made cheap for libxml2 before it parses, read the same way:
/// - a '&' that starts no reference (`?a=1&b=2` in a link, "Q&A" in text) is written `&amp;`:
///   libxml2 reads both as a literal '&', but for the bare one it first raises, formats and
///   stores an error, and newsletters have thousands (html-sanitize 0.37 -> 0.33 s on
///   bench/html-sanitize.py's 18 MB);
/// - the common named references (`&nbsp;`, `&zwnj;`, `&rarr;`…) are written as their
///   characters: libxml2 finds a name by comparing it with each of HTML 4's 253 in turn, and
///   preheaders repeat `&zwnj;&nbsp;` by the hundred (7% of html-sanitize on the generated
///   mailbox). Not inside script and style, where libxml2 decodes nothing: from each `<script`
///   or `<style` to its end tag, or to the end when there is none.
/// Other references with their ';' (`&amp;`, `&lt;`, `&#38;`) are left as they are. Inside
/// script and style `HTMLStream` turns `&amp;` back into '&'.
enum References {
    static func prepared(_ html: [UInt8]) -> [UInt8] {
        html.withUnsafeBufferPointer { p -> [UInt8] in
            var out: [UInt8] = []
            var copied = 0
            var rawText = RawText(p)
            var i = 0
            while let amp = p.firstIndex(of: UInt8(ascii: "&"), from: i) {
                i = amp + 1
                let replacement: [UInt8]
                switch reference(p, at: i) {
                case .none: replacement = escapedAmpersand
                case .other: continue
                case .common(let character, let end):
                    guard !rawText.contains(amp) else { continue }
                    replacement = character
                    i = end
                }
                if out.isEmpty { out.reserveCapacity(p.count + p.count / 16) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<amp]))
                out += replacement
                copied = i
            }
            guard copied > 0 else { return html }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied...]))
            return out
        }
    }

    private static let escapedAmpersand = Array("&amp;".utf8)

    private enum Reference {
        case none  // a bare '&'
        case other  // one libxml2 reads as one: '#', or a name closed by ';'
        case common([UInt8], end: Int)  // one of `common`, its UTF-8, and where it ends
    }

    private static func reference(_ p: UnsafeBufferPointer<UInt8>, at start: Int) -> Reference {
        guard start < p.count else { return .none }
        if p[start] == UInt8(ascii: "#") { return .other }
        var j = start
        var packed: UInt64 = 0
        while j < p.count, j - start < 32, isNameByte(p[j]) {
            packed = packed << 8 | UInt64(p[j])
            j += 1
        }
        guard j > start, j < p.count, p[j] == UInt8(ascii: ";") else { return .none }
        if j - start <= 8, let character = common[packed] { return .common(character, end: j + 1) }
        return .other
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b >= 0x30 && b <= 0x39
    }

    /// HTML 4 entities frequent in mail (libxml2 knows them all, by these exact names), and
    /// their characters.
    static let commonEntities: [(name: String, character: UInt32)] = [
        ("nbsp", 0xA0), ("zwnj", 0x200C), ("zwj", 0x200D), ("shy", 0xAD), ("lrm", 0x200E), ("rlm", 0x200F),
        ("ensp", 0x2002), ("emsp", 0x2003), ("thinsp", 0x2009), ("copy", 0xA9), ("reg", 0xAE), ("trade", 0x2122),
        ("middot", 0xB7), ("bull", 0x2022), ("hellip", 0x2026), ("ndash", 0x2013), ("mdash", 0x2014),
        ("lsquo", 0x2018), ("rsquo", 0x2019), ("sbquo", 0x201A), ("ldquo", 0x201C), ("rdquo", 0x201D),
        ("bdquo", 0x201E), ("laquo", 0xAB), ("raquo", 0xBB), ("rarr", 0x2192), ("larr", 0x2190), ("euro", 0x20AC),
        ("pound", 0xA3), ("yen", 0xA5), ("cent", 0xA2), ("deg", 0xB0), ("times", 0xD7), ("eacute", 0xE9),
        ("egrave", 0xE8), ("agrave", 0xE0), ("ccedil", 0xE7), ("auml", 0xE4), ("ouml", 0xF6), ("uuml", 0xFC),
        ("szlig", 0xDF),
    ]

    /// commonEntities by their names packed into a number, as UTF-8.
    private static let common: [UInt64: [UInt8]] = Dictionary(uniqueKeysWithValues: commonEntities.map { name, value in
        (name.utf8.reduce(0) { $0 << 8 | UInt64($1) }, Array(String(Unicode.Scalar(value)!).utf8))
    })

    /// Where libxml2 may read raw text: found as the references come, front to back.
    private struct RawText {
        let p: UnsafeBufferPointer<UInt8>
        var searched = 0  // every `<script` or `<style` before this is in `current` or passed
        var current: Range<Int>?
        init(_ p: UnsafeBufferPointer<UInt8>) { self.p = p }

        mutating func contains(_ position: Int) -> Bool {
            while true {
                if let r = current {
                    if position < r.lowerBound { return false }
                    if position < r.upperBound { return true }
                }
                guard let start = nextStart() else {
                    current = nil
                    return false
                }
                current = start.at..<endTag(after: start.at + 1, name: start.name)
                searched = current!.upperBound
            }
        }

        private static let names: [[UInt8]] = [Array("script".utf8), Array("style".utf8)]

        /// The next `<script` or `<style` (any case) from `searched` on.
        private mutating func nextStart() -> (at: Int, name: [UInt8])? {
            while let lt = p.firstIndex(of: UInt8(ascii: "<"), from: searched) {
                searched = lt + 1
                guard lt + 1 < p.count, p[lt + 1] | 0x20 == UInt8(ascii: "s") else { continue }
                for name in Self.names where matches(name, at: lt + 1) { return (lt, name) }
            }
            searched = p.count
            return nil
        }

        /// Just past the `</name` (any case) that ends raw text opened before `from`, or the end.
        private func endTag(after from: Int, name: [UInt8]) -> Int {
            var i = from
            while let lt = p.firstIndex(of: UInt8(ascii: "<"), from: i) {
                if lt + 1 < p.count, p[lt + 1] == UInt8(ascii: "/"), matches(name, at: lt + 2) { return lt + 2 + name.count }
                i = lt + 1
            }
            return p.count
        }

        private func matches(_ name: [UInt8], at i: Int) -> Bool {
            guard i + name.count <= p.count else { return false }
            for k in 0..<name.count where p[i + k] | 0x20 != name[k] { return false }
            return true
        }
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
