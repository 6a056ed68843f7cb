/// The first 140 user-perceived characters of a text, whitespace collapsed (text-extract's
/// `snippet`, and conversation-group's when a record has none). Characters are Swift's:
/// extended grapheme clusters by Unicode's rules (UAX #29), so no emoji or accent is cut.
public enum Snippet {
    public static let length = 140

    public static func of(_ text: String) -> String {
        // collapse on scalars (asking Character for isWhitespace costs a property lookup each);
        // count characters only when enough scalars for them may have been kept
        var collapsed = String.UnicodeScalarView()
        var pendingSpace = false
        var kept = 0  // scalars in `collapsed` (its count would walk it)
        var checkAt = length + 20
        for scalar in text.unicodeScalars {
            if isWhitespace(scalar) {
                pendingSpace = !collapsed.isEmpty
                continue
            }
            if pendingSpace {
                collapsed.append(" ")
                pendingSpace = false
            }
            collapsed.append(scalar)
            kept += 1
            if kept >= checkAt {
                if String(collapsed).count > length { break }
                checkAt *= 2  // emoji and combining marks: several scalars a character
            }
        }
        var snippet = Substring(String(collapsed).prefix(length))  // cut at a grapheme boundary
        while snippet.last == " " { snippet.removeLast() }
        return String(snippet)
    }

    /// The snippet of UTF-8 text, as UTF-8. ASCII text, where every character is one byte, is
    /// cut without making a String of it.
    public static func of(utf8 text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length + 1)
        var pendingSpace = false
        for c in text {
            if c >= 0x80 { return Array(of(String(decoding: text, as: UTF8.self)).utf8) }
            if c == 0x20 || (c >= 0x09 && c <= 0x0D) {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                if out.count == length { break }
                out.append(0x20)
                pendingSpace = false
            }
            if out.count == length { break }
            out.append(c)
        }
        while out.last == 0x20 { out.removeLast() }
        return out
    }

    /// Unicode's White_Space property.
    public static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
