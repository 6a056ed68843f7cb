/// RFC 9078 reactions: a text part with `Content-Disposition: reaction` whose content is one
/// line of emoji, sent in reply (In-Reply-To) to the message it reacts to.
enum Reaction {
    /// The longest reaction, in bytes of UTF-8: RFC 9078's content is a single line, and a line
    /// of mail is at most 998 bytes (RFC 5322 §2.1.1).
    static let maxBytes = 998

    /// The part of a message that holds its reaction: the first part marked so, outside any
    /// message it carries.
    static func part(in root: MIMEPart) -> MIMEPart? {
        if root.isMultipart { return root.children.lazy.compactMap(part(in:)).first }
        return isReactionPart(root) ? root : nil
    }

    static func isReactionPart(_ part: MIMEPart) -> Bool {
        part.disposition?.value == "reaction" && part.contentType.value == "text/plain"
    }

    /// Whether a part's body is too long to hold a reaction whatever its transfer encoding
    /// (base64 takes four bytes for three, quoted-printable three for one, and each line of
    /// either may end in a soft break): it is then not decoded to find out.
    static func isTooLong(_ part: MIMEPart) -> Bool {
        if let decoded = part.decodedOverride { return decoded.count > maxBytes + 2 }
        return part.body.count > maxBytes * 3 + 512
    }

    /// The reaction a reaction part's text says: its emoji as sent, without the whitespace around
    /// them; "" when it holds only whitespace (Delta Chat takes a reaction back so); nil when it
    /// is not one line of emoji (separated by spaces or tabs, or none) of at most `maxBytes`,
    /// which RFC 9078 then has read as the message's text.
    static func read(_ utf8: [UInt8]) -> String? {
        let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return utf8.count <= maxBytes ? "" : nil }
        let last = utf8.lastIndex(where: { !isSpace($0) })!
        let line = utf8[first...last]
        guard line.count <= maxBytes, !line.contains(0x0A), !line.contains(0x0D) else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        for c in text where c != " " && c != "\t" {
            if !isEmoji(c) { return nil }
        }
        return text
    }

    /// An emoji or an emoji sequence (UTS #51): a character that starts with an emoji and holds
    /// nothing but emoji, joiners, variation selector 16, the keycap mark and tags. A lone ASCII
    /// character (a digit, `#`, `*`: emoji only as keycaps) is none.
    static func isEmoji(_ c: Character) -> Bool {
        let scalars = c.unicodeScalars
        guard let first = scalars.first, first.properties.isEmoji else { return false }
        if scalars.count == 1 { return !first.isASCII }
        return scalars.allSatisfy { s in
            s.properties.isEmoji || s.value == 0x200D || s.value == 0xFE0F || s.value == 0x20E3 || (0xE0020...0xE007F).contains(s.value)
        }
    }

}
