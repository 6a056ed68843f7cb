import Testing
@testable import UTF8Text

/// The snippet as its definition reads, through String: whitespace collapsed, then the first
/// 140 characters, without a trailing space.
private func snippetByDefinition(_ text: String) -> String {
    var collapsed = String.UnicodeScalarView()
    var pendingSpace = false
    for s in text.unicodeScalars {
        if Snippet.isWhitespace(s) {
            pendingSpace = !collapsed.isEmpty
            continue
        }
        if pendingSpace { collapsed.append(" ") }
        pendingSpace = false
        collapsed.append(s)
    }
    var snippet = String(collapsed).prefix(Snippet.length)
    while snippet.last == " " { snippet.removeLast() }
    return String(snippet)
}

/// Every scalar Snippet counts as a character on its own is one: next to a letter, before a
/// letter, and twice in a row (what joins Hangul jamo and regional indicators), String counts
/// two characters.
@Test func scalarsCountedAloneAreCharacters() {
    for value in UInt32(0)..<0x10000 {
        guard let s = Unicode.Scalar(value), Snippet.isCharacterAlone(s) else { continue }
        let c = String(s)
        #expect(("a" + c).count == 2 && (c + "a").count == 2 && (c + c).count == 2, "U+\(String(value, radix: 16))")
    }
}

/// Random texts of scalars that join (combining marks, ZWJ emoji, flags, Hangul jamo,
/// Devanagari vowel signs, prepended marks) and scalars that do not, at lengths around the cut:
/// the same snippet as by definition.
@Test func snippetsAsDefined() {
    let pool: [String] = ["a", "Z", "7", ".", " ", "  ", "\n", "\r\n", "\t", "\u{A0}", "\u{3000}", "é", "ß", "Ж", "ж",
                          "\u{301}", "\u{483}", "日", "本", "か", "\u{3099}", "ｶ", "\u{FF9E}", "—", "’", "…",
                          "👩", "\u{200D}", "👧", "\u{1F3FD}", "\u{1F1F9}", "\u{1F1FC}", "\u{1100}", "\u{1161}", "\u{11A8}", "한",
                          "क", "\u{93F}", "\u{600}", "\u{FEFF}", "\u{1}", "\u{FFFD}"]
    var r = Random(state: 140)
    for _ in 0..<3000 {
        let count = r.pick([0, 1, 5, 120, 139, 140, 141, 142, 150, 200, 400])
        let simpleOnly = r.next(2) == 0
        var text = ""
        for _ in 0..<count { text += simpleOnly ? r.pick(["a", " ", "é", "日", "\n", "Ж"]) : r.pick(pool) }
        let expected = snippetByDefinition(text)
        #expect(Snippet.of(text) == expected, "\(Array(text.unicodeScalars).map { String($0.value, radix: 16) })")
        #expect(Snippet.of(utf8: Array(text.utf8)) == Array(expected.utf8))
    }
}

@Test func illFormedBytesReadAsReplacementCharacters() {
    #expect(Snippet.of(utf8: [0x61, 0xE6, 0x97, 0x20, 0x20, 0xFF, 0x62]) == Array("a\u{FFFD}\u{FFFD} \u{FFFD}b".utf8))
}
