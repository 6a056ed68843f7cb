import Testing
import UnicodeServices

/// A pattern from the subset FoldedMatcher reads, of about `depth` levels.
private func pattern(_ r: inout Random, depth: Int) -> String {
    let atoms = ["a", "b", "A", "é", "É", "ß", "-", " ", ":", "\\s", "\\S", "\\d", "\\w", "\\W", ".", "[ab]", "[^a ]",
                 "[a-c]", "\\p{L}", "[\\s:]", "\\b", "^", "x"]
    var out = ""
    for _ in 0...(r.next(4)) {
        var piece: String
        if depth > 0, r.next(4) == 0 {
            let inner = (0...r.next(2)).map { _ in pattern(&r, depth: depth - 1) }.joined(separator: "|")
            piece = r.pick(["(?:\(inner))", "(\(inner))", "(?=\(inner))", "(?!\(inner))"])
        } else {
            piece = r.pick(atoms)
        }
        if r.next(3) == 0, piece != "^", piece != "\\b", !piece.hasPrefix("(?=") && !piece.hasPrefix("(?!") {
            piece += r.pick(["?", "*", "+", "{0,2}", "{1,3}", "{2}", "??", "*?", "+?", "{0,3}?"])
        }
        out += piece
    }
    return out
}

private func text(_ r: inout Random) -> String {
    let pieces = ["a", "b", "A", "B", "c", "é", "É", "ß", "ǅ", " ", "  ", ":", "-", "1", "22", "_", "\u{301}", "\u{A0}", "x", "ς", "Σ"]
    return (0..<r.next(9)).map { _ in r.pick(pieces) }.joined()
}

/// LiteralCues never hide a match: wherever ICU finds one of a random pattern in a random
/// text, the text holds the pattern's cues.
@Test func cuesHoldForRandomPatterns() throws {
    var r = Random(state: 5)
    var found = 0
    for _ in 0..<1500 {
        let source = pattern(&r, depth: 2)
        // the subset FoldedMatcher takes: ICU's backtracking on nested repeated groups is
        // exponential, and these short texts would not come back
        guard FoldedMatcher(pattern: source) != nil, let icu = try? TextPattern(source, caseInsensitive: true),
              let cues = LiteralCues(pattern: source) else { continue }
        for _ in 0..<40 {
            let u = Array(text(&r).utf16)
            guard icu.firstMatch(in: u) != nil else { continue }
            found += 1
            #expect(cues.mayMatch(folded: CaseFolding.folded(u)), "/\(source)/ on \(String(decoding: u, as: UTF16.self))")
        }
    }
    #expect(found > 2_000)
}

/// FoldedMatcher against ICU on random patterns of the subset it reads and random texts of
/// letters that fold (É, ß, Σ/ς, ǅ), combining marks, spaces and digits: the same answer for
/// every text FoldedMatcher can read.
@Test func foldedMatcherAgreesWithICUOnRandomPatterns() throws {
    var r = Random(state: 2026)
    var compared = 0, matched = 0, declined = 0
    for _ in 0..<1500 {
        let source = pattern(&r, depth: 2)
        guard let icu = try? TextPattern(source, caseInsensitive: true) else { continue }
        guard let fast = FoldedMatcher(pattern: source) else {
            declined += 1
            continue
        }
        for _ in 0..<40 {
            let t = text(&r)
            let u = Array(t.utf16), f = CaseFolding.folded(u)
            guard FoldedMatcher.canRead(original: u, folded: f) else { continue }
            let whole = icu.wholeMatch(u) != nil
            compared += 1
            if whole { matched += 1 }
            #expect(fast.matchesWhole(f) == whole, "whole: /\(source)/ on \(t.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(fast.matchesStart(f) == icu.matchesStart(u), "start: /\(source)/ on \(t.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(fast.firstMatch(in: f) == icu.firstMatch(in: u)?.range, "find: /\(source)/ on \(t.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
    #expect(compared > 20_000)
    #expect(matched > 1_000)
    #expect(declined < 500)
}

/// The pattern reader takes any string without crashing (user files hold patterns), and where
/// both it and ICU take a random string of pattern syntax, they agree on a few texts.
@Test func anyStringOfPatternSyntax() throws {
    var r = Random(state: 77)
    let alphabet = Array("ab(|)[]{}^$.*+?\\-:,0123456789sdwbpQELk<>=!#ix é".unicodeScalars)
    var both = 0
    for _ in 0..<20_000 {
        let source = String(String.UnicodeScalarView((0..<r.next(12)).map { _ in r.pick(alphabet) }))
        _ = LiteralCues(pattern: source)
        guard let fast = FoldedMatcher(pattern: source), let icu = try? TextPattern(source, caseInsensitive: true) else { continue }
        both += 1
        for t in ["", "a", "ab", "AB-1", "b:a b", "é", "aaaa"] {
            let u = Array(t.utf16)
            #expect(fast.matchesWhole(CaseFolding.folded(u)) == (icu.wholeMatch(u) != nil), "/\(source)/ on '\(t)'")
        }
    }
    #expect(both > 1_000)
}

/// TextPattern's search from chosen starts (an anchored match tried at each) finds what
/// scanning on from each match's start + 1 finds (FoldedMatcher's `firstMatch(from:)`, ICU's
/// find), less the matches starting elsewhere: look-behind, `\b` and `^` still see the text
/// before the start.
@Test func matchesFromChosenStartsAreTheOverlappingScansMatchesThere() throws {
    var r = Random(state: 321)
    var compared = 0, found = 0
    for _ in 0..<1500 {
        let source = pattern(&r, depth: 2)
        guard let fast = FoldedMatcher(pattern: source), let icu = try? TextPattern(source, caseInsensitive: true) else { continue }
        for _ in 0..<20 {
            let u = Array(text(&r).utf16), f = CaseFolding.folded(u)
            guard FoldedMatcher.canRead(original: u, folded: f) else { continue }
            let every = r.next(3) + 1
            let mayStart = { (q: Int) in q % every == 0 || q > 0 && u[q - 1] == 0x20 }
            var scanned: [Range<Int>] = []
            var start = 0
            while start <= f.count, let m = fast.firstMatch(in: f, from: start) {
                if mayStart(m.lowerBound) { scanned.append(m) }
                start = m.lowerBound + 1
            }
            var chosen: [Range<Int>] = []
            icu.forEachMatch(in: u, startingAt: (0...u.count).filter(mayStart)) { m in
                chosen.append(m.range)
                return true
            }
            compared += 1
            found += chosen.count
            #expect(chosen == scanned, "/\(source)/ on \(String(decoding: u, as: UTF16.self)) every \(every)")
        }
    }
    #expect(compared > 10_000)
    #expect(found > 5_000)
}
