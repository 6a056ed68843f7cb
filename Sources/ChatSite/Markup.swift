import Sanitize

/// Text made safe for HTML by html-sanitize's escaping, quotes included, so that escaped text is
/// the same in a text run and in a (double-quoted) attribute value.
public enum HTMLEscape {
    public static func text<C: Collection<UInt8>>(_ bytes: C, into out: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ Escape.attribute($0, into: &out) }) == nil {
            Escape.attribute(Array(bytes), into: &out)
        }
    }

    public static func text(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        text(s.utf8, into: &out)
        return out
    }
}

/// A message's plain text as HTML: escaped, with its http(s) and mailto links made links
/// (line breaks are kept by the stylesheet's `white-space: pre-wrap`).
public enum LinkedText {
    public static func html(_ text: [UInt8], into out: inout [UInt8]) {
        var i = 0, plainStart = 0
        while i < text.count {
            let b = text[i] | 0x20
            guard b == UInt8(ascii: "h") || b == UInt8(ascii: "m"), let start = linkStart(text, i) else { i += 1; continue }
            var end = start
            while end < text.count, !endsLink(text[end]) { end += 1 }
            // punctuation after a link belongs to the sentence, a ')' to the link only when it opened one
            while end > start, trailing.contains(text[end - 1]) {
                if text[end - 1] == UInt8(ascii: ")"), count(UInt8(ascii: "("), text[i..<end]) >= count(UInt8(ascii: ")"), text[i..<end]) { break }
                end -= 1
            }
            guard end > start else { i = start; continue }
            HTMLEscape.text(text[plainStart..<i], into: &out)
            out += Array("<a href=\"".utf8)
            HTMLEscape.text(text[i..<end], into: &out)
            out += Array("\" rel=\"noopener noreferrer\" target=\"_blank\">".utf8)
            HTMLEscape.text(text[i..<end], into: &out)
            out += Array("</a>".utf8)
            i = end
            plainStart = end
        }
        HTMLEscape.text(text[plainStart...], into: &out)
    }

    private static func count(_ b: UInt8, _ s: ArraySlice<UInt8>) -> Int { s.reduce(0) { $0 + ($1 == b ? 1 : 0) } }

    private static let schemes = ["https://", "http://", "mailto:"].map { Array($0.utf8) }
    private static let trailing = Set(".,;:!?'\")]}*".utf8)

    /// Where the link's text after its scheme starts, when a link starts at `i` (not inside a word).
    private static func linkStart(_ text: [UInt8], _ i: Int) -> Int? {
        if i > 0, isWordByte(text[i - 1]) { return nil }
        for s in schemes where i + s.count < text.count {
            var matches = true
            for k in 0..<s.count where text[i + k] | 0x20 != s[k] | 0x20 { matches = false; break }
            if matches, !endsLink(text[i + s.count]) { return i + s.count }
        }
        return nil
    }

    private static func isWordByte(_ b: UInt8) -> Bool {
        (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") || b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    private static func endsLink(_ b: UInt8) -> Bool {
        b <= 0x20 || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "\"") || b == 0x7F
    }
}

/// Things a page shows about text without reading it as a person would.
public enum TextFacts {
    /// The language tag that picks the right CJK glyphs: `ja` when the text has kana, `ko` for
    /// hangul, `zh` for Han alone; nil otherwise (the page's fonts do).
    public static func cjkLanguage<C: Collection<UInt8>>(_ text: C) -> String? where C.Index == Int {
        var han = false
        var i = text.startIndex
        while i < text.endIndex {
            let b = text[i]
            if b < 0xE3 || b > 0xED || i + 2 >= text.endIndex { i += 1; continue }
            let scalar = (Int(b & 0x0F) << 12) | (Int(text[i + 1] & 0x3F) << 6) | Int(text[i + 2] & 0x3F)
            switch scalar {
            case 0x3040...0x30FF: return "ja"
            case 0xAC00...0xD7AF: return "ko"
            case 0x4E00...0x9FFF: han = true
            default: break
            }
            i += 3
        }
        return han ? "zh" : nil
    }

    /// One or two letters for an avatar: the first letters of the first and last words of a
    /// name in Latin, Greek or Cyrillic ("Alex Rivera" → "AR"); the first character of any other
    /// name (陳偉傑 → 陳; Arabic letters would join into a word) or of a name in one word; the
    /// address's first letter when there is no name.
    public static func initials(name: String?, address: String) -> String {
        let words = (name ?? "").split { $0 == " " || $0 == "," || $0 == "\"" || $0 == "(" || $0 == ")" }
        guard let first = words.first?.first else { return address.first.map { String($0).uppercased() } ?? "?" }
        func separate(_ c: Character) -> Bool { c.unicodeScalars.first.map { $0.value < 0x0590 } ?? false }
        if separate(first), words.count > 1, let last = words.last?.first, separate(last) {
            return (String(first) + String(last)).uppercased()
        }
        return String(first).uppercased()
    }

    /// A name as a person reads it: the "Last, First" of directories and Outlook turned round
    /// ("Sato, Hana" → "Hana Sato"), unless what follows the comma is a title or a company's
    /// form ("Acme, Inc.", "King, Jr"); any other name as written.
    public static func displayName(_ name: String) -> String {
        let parts = name.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return name }
        let last = parts[0].trimmingSpaces, first = parts[1].trimmingSpaces
        let suffixes: Set<String> = ["inc", "ltd", "llc", "gmbh", "co", "corp", "ag", "sa", "jr", "sr", "ii", "iii", "phd", "md"]
        guard !last.isEmpty, !first.isEmpty, !last.contains(" ") || !first.contains(" "),
              !suffixes.contains(first.lowercased().filter { $0 != "." }) else { return name }
        return first + " " + last
    }

    /// What a group's title and list show of a member: "Hana" of "Hana Sato" and of "Sato, Hana";
    /// a Chinese, Japanese or Korean name whole (its first word would be the family name); the
    /// address's local part when there is no name.
    public static func givenName(name: String?, address: String) -> String {
        guard let name, !name.isEmpty else { return String(address.split(separator: "@").first ?? Substring(address)) }
        let shown = displayName(name)
        if cjkLanguage(Array(shown.utf8)) != nil { return shown }
        return String(shown.split(separator: " ").first ?? Substring(shown))
    }

    /// The text set apart from its neighbours' direction (U+2068…U+2069) when it is written right
    /// to left, so that "ليلى, سارة" in a list of names keeps its order.
    public static func isolatedIfRightToLeft(_ s: String) -> String {
        let rightToLeft = s.unicodeScalars.contains {
            switch $0.value {
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
            default: return false
            }
        }
        return rightToLeft ? "\u{2068}" + s + "\u{2069}" : s
    }

    /// One of `count` colours for an address, the same on every run (FNV-1a of its bytes).
    public static func colourIndex(_ address: String, count: Int) -> Int { Int(fnv1a(address) % UInt64(count)) }

    /// FNV-1a, 64 bits, of a string's UTF-8: the same on every run, unlike Swift's Hasher.
    public static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}

extension Substring {
    // by index, not by reversing: each generic wrapper type is made at run time, on the first
    // call of a process (a delivery's template reading)
    var trimmingSpaces: String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else { return "" }
        return String(self[first...last])
    }
}
