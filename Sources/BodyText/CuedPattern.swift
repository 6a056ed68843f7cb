import UnicodeServices

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

    /// The first match in `t` (by UTF-16 offsets), nil when there is none.
    func firstMatch(in t: PatternText) -> Range<Int>? {
        var first: Range<Int>?
        forEachMatch(in: t) { match in
            first = match
            return false
        }
        return first
    }

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
