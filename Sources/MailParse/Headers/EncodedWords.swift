import UTF8Text
import UnicodeServices

/// Decodes header text: RFC 2047 encoded words (B and Q, any charset ICU knows), and raw 8-bit
/// bytes (UTF-8 when valid, else windows-1252). Tolerates what real mail does wrong: encoded
/// words glued to other text, spaces inside Q words, missing padding, a character split across
/// two adjacent words.
struct HeaderTextDecoder {
    let charsets: CharsetDecoder

    /// Decodes a whole unstructured value.
    func decode(_ raw: [UInt8], defects: inout [String]) -> String {
        raw.withUnsafeBytes { decode($0, 0..<raw.count, defects: &defects) }
    }

    func decode(_ raw: [UInt8]) -> String {
        var ignored: [String] = []
        return decode(raw, defects: &ignored)
    }

    func decode(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, defects: inout [String]) -> String {
        guard Bytes.find([UInt8(ascii: "="), UInt8(ascii: "?")], in: b, from: range.lowerBound, to: range.upperBound) != nil else {
            return plain(b, range)
        }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        // an encoded word's bytes waiting to be joined with the next adjacent one of its charset
        var pending: (charset: String, bytes: [UInt8])?
        var literalStart = range.lowerBound
        var i = range.lowerBound

        func flushPending() {
            guard let p = pending else { return }
            let result = charsets.decode(p.bytes, label: p.charset)
            if case .unknownCharset? = result.problem { defects.append("unknown_charset") }
            out.append(contentsOf: result.utf8)
            pending = nil
        }

        while i < range.upperBound {
            guard b[i] == UInt8(ascii: "="), i + 1 < range.upperBound, b[i + 1] == UInt8(ascii: "?"),
                let word = parseWord(b, at: i, end: range.upperBound)
            else {
                i += 1
                continue
            }
            // text between two encoded words is dropped when it is only whitespace
            let between = literalStart..<i
            let onlySpace = between.allSatisfy { Bytes.isWhitespace(b[$0]) }
            if !(onlySpace && pending != nil) {
                flushPending()
                out.append(contentsOf: plainBytes(b, between))
            }
            if let p = pending, p.charset != word.charset { flushPending() }
            if pending == nil { pending = (word.charset, []) }
            // ISO-2022-JP encoders end each word in ASCII (ESC ( B) and start the next with its
            // own escape; joined, the two escapes in a row are an error to ICU (a U+FFFD)
            if word.bytes.first == 0x1B, pending!.bytes.count >= 3, pending!.bytes[pending!.bytes.count - 3] == 0x1B,
               pending!.bytes[pending!.bytes.count - 2] == UInt8(ascii: "(") {
                pending!.bytes.removeLast(3)
            }
            pending!.bytes.append(contentsOf: word.bytes)
            if word.malformed { defects.append("invalid_encoded_word") }
            i = word.end
            literalStart = i
        }
        flushPending()
        out.append(contentsOf: plainBytes(b, literalStart..<range.upperBound))
        return String(decoding: out, as: UTF8.self)
    }

    private func plain(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: b[range])
        if UTF8Bytes.isValid(slice) { return String(decoding: slice, as: UTF8.self) }
        return String(decoding: Windows1252.decode(slice), as: UTF8.self)
    }

    /// Raw header bytes as UTF-8: as they are when valid, else windows-1252.
    private func plainBytes(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> [UInt8] {
        let slice = UnsafeRawBufferPointer(rebasing: b[range])
        if UTF8Bytes.isValid(slice) { return Array(slice) }
        return Windows1252.decode(slice)
    }

    struct Word {
        var charset: String
        var bytes: [UInt8]
        var end: Int
        var malformed: Bool
    }

    /// Parses `=?charset?B|Q?text?=` at `start`.
    func parseWord(_ b: UnsafeRawBufferPointer, at start: Int, end: Int) -> Word? {
        var i = start + 2
        let charsetStart = i
        while i < end, b[i] != UInt8(ascii: "?"), !Bytes.isWhitespace(b[i]) { i += 1 }
        guard i + 2 < end, b[i] == UInt8(ascii: "?"), i > charsetStart, b[i + 2] == UInt8(ascii: "?") else { return nil }
        let charset = String(decoding: b[charsetStart..<i], as: UTF8.self)
        let encoding = Bytes.lower(b[i + 1])
        guard encoding == UInt8(ascii: "b") || encoding == UInt8(ascii: "q") else { return nil }
        let textStart = i + 3
        guard let close = Bytes.find([UInt8(ascii: "?"), UInt8(ascii: "=")], in: b, from: textStart, to: end) else {
            return nil
        }
        let text = UnsafeRawBufferPointer(rebasing: b[textStart..<close])
        var malformed = false
        let bytes: [UInt8]
        if encoding == UInt8(ascii: "b") {
            (bytes, malformed) = Base64.decode(text)
        } else {
            bytes = decodeQ(text)
        }
        return Word(charset: charset, bytes: bytes, end: close + 2, malformed: malformed)
    }

    private func decodeQ(_ t: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(t.count)
        var i = 0
        while i < t.count {
            let c = t[i]
            if c == UInt8(ascii: "_") {
                out.append(Bytes.space)
            } else if c == UInt8(ascii: "="), i + 2 < t.count, let h = hexDigit(t[i + 1]), let l = hexDigit(t[i + 2]) {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }
}

@inline(__always) func hexDigit(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
