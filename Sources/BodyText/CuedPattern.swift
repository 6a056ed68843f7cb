import UnicodeServices

/// A piece of text as a pattern reads it: UTF-16 for ICU, case-folded for FoldedMatcher,
/// and the cues of the patterns that it holds.
struct PatternText {
    let utf16: [UInt16]
    let folded: [UInt16]
    /// FoldedMatcher can read `folded` for this text.
    let foldedIsExact: Bool
    let cues: CueHits

    /// `asciiCues`: the text's cues when it is ASCII and they are known (`cues(utf8:index:)`).
    init(utf8: UnsafeRawBufferPointer, cues: CueIndex, asciiCues: CueHits? = nil) {
        if let hits = asciiCues ?? Self.cues(utf8: utf8, index: cues) {
            let utf16 = utf8.map { UInt16($0) }
            self.init(utf16: utf16, folded: utf16.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, foldedIsExact: true, cues: hits)
        } else {
            self.init(utf16: Array(String(decoding: utf8, as: UTF8.self).utf16), cues: cues)
        }
    }

    /// The cues in ASCII text, read from its bytes; nil for other text (it has to be folded).
    static func cues(utf8: UnsafeRawBufferPointer, index: CueIndex) -> CueHits? {
        utf8.allSatisfy { $0 < 0x80 } ? index.hits(inASCII: utf8) : nil
    }

    init(_ bytes: [UInt8], cues: CueIndex) { self = bytes.withUnsafeBytes { PatternText(utf8: $0, cues: cues) } }

    private init(utf16: [UInt16], folded: [UInt16], foldedIsExact: Bool, cues: CueHits) {
        self.utf16 = utf16
        self.folded = folded
        self.foldedIsExact = foldedIsExact
        self.cues = cues
    }

    init(utf16: [UInt16], cues: CueIndex) {
        self.utf16 = utf16
        folded = CaseFolding.folded(utf16)
        foldedIsExact = FoldedMatcher.canRead(original: utf16, folded: folded)
        self.cues = folded.withUnsafeBufferPointer(cues.hits)
    }
}

/// A list of patterns, and the literals one of which a text must hold for each to match (their
/// groups in the CueIndex that PatternText is read with). Each is matched by FoldedMatcher
/// where it can, else by ICU.
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
        /// The cues' groups in the CueIndex.
        let cueGroups: [Int]
        lazy var icu = try! TextPattern(source, caseInsensitive: true)  // the lists were checked when loaded
        lazy var folded = FoldedMatcher(pattern: source)

        init(_ source: String, cues: LiteralCues?, index: inout CueIndex.Builder) {
            self.source = source
            self.cues = cues
            cueGroups = cues.map { index.add($0) } ?? []
        }

        func mayMatch(_ t: PatternText) -> Bool { t.cues.containsAll(cueGroups) }

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

    init(_ list: [String], cues index: inout CueIndex.Builder, reader: inout CueReader) {
        source = list.isEmpty ? "(?!)" : "(?:" + list.map { "(?:\($0))" }.joined(separator: "|") + ")"
        let cues = reader.alternatives(list, joined: source)
        whole = Alternative(source, cues: cues.whole, index: &index)
        alternatives = zip(list, cues.each).map { Alternative($0, cues: $1, index: &index) }
    }

    init(_ pattern: String, cues index: inout CueIndex.Builder, reader: inout CueReader) {
        source = pattern
        whole = Alternative(pattern, cues: reader.pattern(pattern), index: &index)
        alternatives = [whole]
    }

    func mayMatch(_ t: PatternText) -> Bool { whole.mayMatch(t) }

    func mayMatch(_ cues: CueHits) -> Bool { cues.containsAll(whole.cueGroups) }

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
