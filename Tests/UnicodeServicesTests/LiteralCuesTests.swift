import Testing
import UnicodeServices

private func cues(_ pattern: String) -> [[String]]? {
    LiteralCues(pattern: pattern)?.groups.map { $0.map { String(decoding: $0, as: UTF16.self) } }
}

private func mayMatch(_ pattern: String, _ text: String) -> Bool {
    LiteralCues(pattern: pattern)!.mayMatch(folded: CaseFolding.folded(Array(text.utf16)))
}

@Test func literalRunsAndAlternations() {
    #expect(cues("sent from my \\S.{0,40}") == [["sent from my "]])
    #expect(cues("(?:best|kind|warm)? ?regards\\W{0,3}") == [["regards"]])
    #expect(cues("colou?r") == [["color", "colour"]])
    #expect(cues("(?:wrote|schrieb)\\s*[:：]") == [["schrieb", "wrote"], [":", "："]])
    #expect(cues("\\Qcopie à\\E") == [["copie à"]])
    #expect(cues("-{2,}\\s*forwarded") == [["forwarded"], ["-"]])
}

@Test func whatGivesNoCues() {
    #expect(cues("\\w+") == nil)
    #expect(cues("(?:abc|\\d+)") == nil)  // a branch with no literal
    #expect(cues("(?x) a b c") == nil)  // free spacing: not read here
    #expect(cues("a{") == nil)
    #expect(cues("(?!abc)x?") == nil)
}

@Test func lookaheadContentIsInTheText() {
    #expect(cues("^\\s*(?=(?:on|am)\\s)") == [["am", "on"]])
}

@Test func casesFoldBothWays() {
    #expect(mayMatch("straße", "STRASSE"))
    #expect(mayMatch("sent from my", "ſENT FROM MY iPhone"))  // long s folds to s
    #expect(mayMatch("пишет", "Иван ПИШЕТ:"))
    #expect(mayMatch("\\bk\\b", "5 \u{212A}"))  // Kelvin sign
    #expect(!mayMatch("sent from my", "sent from your phone"))
}

@Test func foldingMatchesICU() {
    #expect(CaseFolding.folded(Array("ÉCRIT Straße İ".utf16)) == Array("écrit strasse i̇".utf16))
    #expect(CaseFolding.folded(Array("ABC xyz".utf16)) == Array("abc xyz".utf16))
}

/// CueIndex finds a group exactly when one of its literals is in the text, as a plain search
/// says: random groups of literals that share starts, and random texts of their letters, read
/// as folded UTF-16 and, when ASCII, from their bytes with capitals.
@Test func cueIndexFindsWhatAPlainSearchFinds() {
    var seed: UInt64 = 7
    func next(_ n: Int) -> Int {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Int((seed >> 33) % UInt64(n))
    }
    let letters: [UInt16] = [0x61, 0x62, 0x63, 0x20, 0x3A, 0xE9, 0x43F, 0x5199, 0x6161, 0xFF1A]
    func word(_ maxLength: Int) -> [UInt16] { (0...next(maxLength)).map { _ in letters[next(letters.count)] } }
    func holds(_ text: [UInt16], _ literal: [UInt16]) -> Bool {
        literal.count <= text.count && (0...(text.count - literal.count)).contains { text[$0..<($0 + literal.count)].elementsEqual(literal) }
    }
    var found = 0, missed = 0
    for _ in 0..<300 {
        let groups = (0..<(1 + next(70))).map { _ in (0..<(1 + next(4))).map { _ in word(5) } }
        let index = CueIndex(groups: groups)
        for _ in 0..<30 {
            var text = word(12)
            if next(2) == 0 { text = Array(text.map { $0 < 0x80 ? $0 : 0x61 }) }
            let hits = text.withUnsafeBufferPointer(index.hits)
            for (g, group) in groups.enumerated() {
                let expected = group.contains { holds(text, $0) }
                #expect(hits.contains(g) == expected, "group \(g) \(group) in \(text)")
                if expected { found += 1 } else { missed += 1 }
            }
            if text.allSatisfy({ $0 < 0x80 }) {
                let capitals = text.map { UInt8($0 >= 0x61 && $0 <= 0x7A && next(2) == 0 ? $0 - 0x20 : $0) }
                let fromBytes = capitals.withUnsafeBytes(index.hits(inASCII:))
                #expect(groups.indices.allSatisfy { fromBytes.contains($0) == hits.contains($0) }, "\(capitals)")
            }
        }
    }
    #expect(found > 10_000 && missed > 10_000)
}
