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
