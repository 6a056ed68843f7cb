import Testing
import UTF8Text

/// UTF8Bytes.scalar reads every scalar of a text forwards and backwards as String does, and an
/// ill-formed byte as U+FFFD of one byte.
@Test func scalarsForwardAndBackward() {
    let text = "a é\u{A0}日本\u{3000}😀\u{2028}z"
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { b in
        var forward: [Unicode.Scalar] = []
        var i = 0
        while i < b.count {
            let s = UTF8Bytes.scalar(b, at: i)
            forward.append(s.scalar)
            i += s.length
        }
        #expect(forward == Array(text.unicodeScalars))
        var backward: [Unicode.Scalar] = []
        var end = b.count
        while end > 0 {
            let s = UTF8Bytes.scalar(b, endingAt: end)
            backward.append(s.scalar)
            end -= s.length
        }
        #expect(backward == Array(text.unicodeScalars.reversed()))
    }
    [UInt8]([0x61, 0xE6, 0x97, 0x62]).withUnsafeBytes { b in
        #expect(UTF8Bytes.scalar(b, at: 1) == ("\u{FFFD}", 1))
        #expect(UTF8Bytes.scalar(b, endingAt: 3) == ("\u{FFFD}", 1))
    }
}

/// UTF8Bytes.length(at:in:where:) and length(endingAt:in:where:): a member's length in bytes,
/// 0 for a non-member, at every place of a text, forwards and backwards.
@Test func memberLengthsForwardAndBackward() {
    let text = "a é\u{A0}日\u{3000}😀\tz"
    let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { b in
        var offset = 0
        for s in text.unicodeScalars {
            let n = String(s).utf8.count
            #expect(UTF8Bytes.length(at: offset, in: b, where: isSpace) == (isSpace(s) ? n : 0), "\(s)")
            #expect(UTF8Bytes.length(endingAt: offset + n, in: b, where: isSpace) == (isSpace(s) ? n : 0), "\(s)")
            offset += n
        }
    }
}

/// Trimming by a set of scalars read from UTF-8, at both ends and at the end alone.
@Test func trimmedByScalars() {
    func space(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\u{A0}" || s == "\u{3000}" }
    for (text, kept) in [(" \u{A0}a b\u{3000} ", "a b"), ("   ", ""), ("", ""), ("é", "é"), ("\u{3000}日", "日")] {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { b in
            let r = UTF8Bytes.trimmed(b, where: space)
            #expect(String(decoding: bytes[r], as: UTF8.self) == kept, "\(text)")
            #expect(UTF8Bytes.trimmedEnd(b, where: space) == (kept.isEmpty ? 0 : r.upperBound))
        }
    }
}
