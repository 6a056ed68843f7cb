import UnicodeServices
import UTF8Text

/// A text as UTF-8 with its lines (split at LF, a CR before it dropped), read byte by byte:
/// the splitter looks at every line of every message, so no String is made of a line unless a
/// pattern has to read it.
struct TextLines {
    let bytes: [UInt8]
    /// Each line's bytes, without its line end.
    let lines: [Range<Int>]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var lines: [Range<Int>] = []
        lines.reserveCapacity(bytes.count / 32 + 1)
        bytes.withUnsafeBufferPointer { b in
            var start = 0
            while let p = b[start...].firstIndex(of: 0x0A) {
                lines.append(start..<(p > start && b[p - 1] == 0x0D ? p - 1 : p))
                start = p + 1
            }
            let end = bytes.count
            lines.append(start..<(end > start && b[end - 1] == 0x0D ? end - 1 : end))
        }
        self.lines = lines
    }

    var count: Int { lines.count }

    func isBlank(_ line: Int) -> Bool { isBlank(lines[line]) }

    /// Only spaces, tabs and CRs.
    func isBlank(_ range: Range<Int>) -> Bool {
        for i in range where bytes[i] != 0x20 && bytes[i] != 0x09 && bytes[i] != 0x0D { return false }
        return true
    }

    /// Quoted with `>` (after any spaces or tabs), unless the line closes with `<<` as it
    /// opened: ">>> Visit our site <<<" is decoration, not a quote.
    func isQuote(_ line: Int) -> Bool {
        for i in lines[line] {
            let c = bytes[i]
            if c == 0x3E { return !hasSuffix(Self.closingMarks, trimmed(line)) }
            if c != 0x20 && c != 0x09 { return false }
        }
        return false
    }

    private static let closingMarks = Array("<<".utf8)

    /// The line without Unicode white space at either end.
    func trimmed(_ line: Int) -> Range<Int> { trimmed(lines[line]) }

    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound, end = range.upperBound
        while start < end, let n = whitespaceLength(at: start, end: end) { start += n }
        while end > start, let n = whitespaceLength(before: end, start: start) { end -= n }
        return start..<end
    }

    /// The length of the white-space character (Unicode's White_Space) starting at `i`.
    private func whitespaceLength(at i: Int, end: Int) -> Int? {
        let c = bytes[i]
        if c < 0x80 { return c == 0x20 || (c >= 0x09 && c <= 0x0D) ? 1 : nil }
        let s = bytes.withUnsafeBytes { UTF8Bytes.scalar(UnsafeRawBufferPointer(rebasing: $0[..<end]), at: i) }
        return Snippet.isWhitespace(s.scalar) ? s.length : nil
    }

    private func whitespaceLength(before end: Int, start: Int) -> Int? {
        let c = bytes[end - 1]
        if c < 0x80 { return c == 0x20 || (c >= 0x09 && c <= 0x0D) ? 1 : nil }
        let s = bytes.withUnsafeBytes { UTF8Bytes.scalar(UnsafeRawBufferPointer(rebasing: $0[start...]), endingAt: end - start) }
        return Snippet.isWhitespace(s.scalar) ? s.length : nil
    }

    func contains(_ byte: UInt8, in range: Range<Int>) -> Bool {
        for i in range where bytes[i] == byte { return true }
        return false
    }

    func contains(_ needle: [UInt8], in range: Range<Int>) -> Bool {
        guard needle.count <= range.count else { return false }
        return (range.lowerBound...(range.upperBound - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    func hasSuffix(_ suffix: [UInt8], _ range: Range<Int>) -> Bool {
        range.count >= suffix.count && bytes[(range.upperBound - suffix.count)..<range.upperBound].elementsEqual(suffix)
    }

    /// The bytes of `range` as patterns read them.
    func patternText(_ range: Range<Int>) -> PatternText {
        bytes.withUnsafeBytes { PatternText(utf8: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}

/// A piece of text as a pattern reads it: UTF-16 for ICU, and case-folded for the cues and
/// FoldedMatcher.
struct PatternText {
    let utf16: [UInt16]
    let folded: [UInt16]
    /// FoldedMatcher can read `folded` for this text.
    let foldedIsExact: Bool

    init(utf8: UnsafeRawBufferPointer) {
        let ascii = utf8.allSatisfy { $0 < 0x80 }
        self.init(utf16: ascii ? utf8.map { UInt16($0) } : Array(String(decoding: utf8, as: UTF8.self).utf16))
    }

    init(_ bytes: [UInt8]) { self = bytes.withUnsafeBytes { PatternText(utf8: $0) } }

    init(utf16: [UInt16]) {
        self.utf16 = utf16
        folded = CaseFolding.folded(utf16)
        foldedIsExact = FoldedMatcher.canRead(original: utf16, folded: folded)
    }
}

/// A list of patterns, and the literals one of which a text must hold for each to match.
/// Each is matched by FoldedMatcher where it can, else by ICU.
struct CuedPattern {
    /// The alternation of the whole list.
    let source: String
    private let whole: Alternative
    /// Each pattern on its own: a whole-text match tries only those whose cues the text holds.
    private let alternatives: [Alternative]

    var cues: LiteralCues? { whole.cues }

    /// One pattern, compiled when first tried.
    private final class Alternative {
        let source: String
        let cues: LiteralCues?
        lazy var icu = try! TextPattern(source, caseInsensitive: true)  // the lists were checked when loaded
        lazy var folded = FoldedMatcher(pattern: source)

        init(_ source: String) {
            self.source = source
            cues = LiteralCues(pattern: source)
        }

        func mayMatch(_ t: PatternText) -> Bool { cues?.mayMatch(folded: t.folded) ?? true }

        func matchesWhole(_ t: PatternText) -> Bool {
            guard mayMatch(t) else { return false }
            if t.foldedIsExact, let folded { return folded.matchesWhole(t.folded) }
            return icu.wholeMatch(t.utf16) != nil
        }

        func matchesStart(_ t: PatternText) -> Bool {
            guard mayMatch(t) else { return false }
            if t.foldedIsExact, let folded { return folded.matchesStart(t.folded) }
            return icu.matchesStart(t.utf16)
        }
    }

    init(_ list: [String]) {
        let pattern = list.isEmpty ? "(?!)" : "(?:" + list.map { "(?:\($0))" }.joined(separator: "|") + ")"
        self.init(pattern, alternatives: list)
    }

    init(_ pattern: String, alternatives: [String]? = nil) {
        source = pattern
        whole = Alternative(pattern)
        self.alternatives = alternatives.map { $0.map(Alternative.init) } ?? [whole]
    }

    func mayMatch(_ t: PatternText) -> Bool { whole.mayMatch(t) }

    /// Whether one of the patterns matches all of `t`.
    func matchesWhole(_ t: PatternText) -> Bool {
        mayMatch(t) && alternatives.contains { $0.matchesWhole(t) }
    }

    /// Whether the pattern matches a start of `t`.
    func matchesStart(_ t: PatternText) -> Bool { whole.matchesStart(t) }

    /// Each match in `t` (by UTF-16 offsets), the next searched from the end of the last, until
    /// `body` returns false.
    func forEachMatch(in t: PatternText, _ body: (Range<Int>) -> Bool) {
        guard mayMatch(t) else { return }
        guard t.foldedIsExact, let folded = whole.folded else {
            whole.icu.forEachMatch(in: t.utf16) { body($0.range) }
            return
        }
        var from = 0
        while from <= t.folded.count, let range = folded.firstMatch(in: t.folded, from: from), body(range) {
            from = range.isEmpty ? range.lowerBound + 1 : range.upperBound
        }
    }
}
