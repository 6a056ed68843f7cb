/// The first 140 user-perceived characters of a text, whitespace collapsed (text-extract's
/// `snippet`, and conversation-group's when a record has none). Characters are Swift's:
/// extended grapheme clusters by Unicode's rules (UAX #29), so no emoji or accent is cut.
public enum Snippet {
    public static let length = 140

    public static func of(_ text: String) -> String {
        var text = text
        return text.withUTF8 { String(decoding: of(utf8: UnsafeRawBufferPointer($0)), as: UTF8.self) }
    }

    public static func of(utf8 text: [UInt8]) -> [UInt8] {
        text.withUnsafeBytes { of(utf8: $0) }
    }

    /// The snippet of UTF-8 text (an ill-formed byte reads as U+FFFD), as UTF-8. The text is
    /// read only as far as the snippet goes, and made a String only when a scalar that may join
    /// its neighbours into one character (a combining mark, a joiner, an emoji modifier…) is
    /// kept: until then every scalar kept is a character.
    public static func of(utf8 text: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length + 8)
        var kept = 0  // scalars in `out`, spaces included
        var eachACharacter = true  // then `kept` counts characters
        var checkAt = length + 20
        var pendingSpace = false
        var i = 0
        while i < text.count {
            let byte = text[i]
            var (scalar, size) = (Unicode.Scalar(byte), 1)
            if byte >= 0x80 { (scalar, size) = UTF8Bytes.scalar(text, at: i) }
            i &+= size
            if byte < 0x80 ? byte == 0x20 || byte &- 0x09 < 5 : isWhitespace(scalar) {
                pendingSpace = kept > 0
                continue
            }
            if eachACharacter {
                let alone = byte < 0x80 || isCharacterAlone(scalar)
                if alone, kept &+ (pendingSpace ? 1 : 0) >= length { break }
                eachACharacter = alone
            }
            if pendingSpace {
                out.append(0x20)
                kept &+= 1
                pendingSpace = false
            }
            if byte < 0x80 {
                out.append(byte)
            } else if size == 1 {
                out += [0xEF, 0xBF, 0xBD]  // an ill-formed byte
            } else {
                for k in (i &- size)..<i { out.append(text[k]) }
            }
            kept &+= 1
            if !eachACharacter, kept >= checkAt {
                if String(decoding: out, as: UTF8.self).count > length { break }
                checkAt *= 2
            }
        }
        guard !eachACharacter else { return out }
        var snippet = Substring(String(decoding: out, as: UTF8.self).prefix(length))  // cut at a grapheme boundary
        while snippet.last == " " { snippet.removeLast() }
        return Array(snippet.utf8)
    }

    /// Whether no rule of UAX #29 joins the scalar to what is before or after it (its
    /// Grapheme_Cluster_Break is Other or Control), for the scripts of most mail; false is
    /// always safe. Checked against String over every scalar of these ranges.
    static func isCharacterAlone(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x300, 0x370..<0x483, 0x2010..<0x2028, 0x3001..<0x302A, 0x3041..<0x3099, 0x30A0..<0x3100, 0x4E00..<0xA000,
             0xFF01..<0xFF9E: true
        default: false
        }
    }

    /// Unicode's White_Space property.
    public static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
