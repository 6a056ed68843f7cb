import Testing
@testable import MailStore

// What the search index takes of a message's HTML alternative: the lines of the text a reader
// sees of it that hold a word the body text lacks (SearchText.linesAdding).

private func adding(_ seen: String, to plain: String, maxBytes: Int = 1 << 20) -> String {
    SearchText.linesAdding(Array(seen.utf8), to: plain, maxBytes: maxBytes)
}

@Test func htmlLinesThatSayWhatThePlainTextSaysAreLeftOut() {
    let plain = "Choir practice moves to the parish hall on Thursday.\n\nSee you there!"
    #expect(adding("Choir practice moves to the parish hall on Thursday.\nSee you there!", to: plain) == "")
    // case and punctuation do not make a word new
    #expect(adding("CHOIR practice -- moves to the Parish Hall, on thursday", to: plain) == "")
    #expect(adding("Choir practice moves.\nP.S. bring a thermos, the heating is broken.", to: plain)
            == "P.S. bring a thermos, the heating is broken.")
}

@Test func aNewsletterSayingLittleInPlainTextGetsEveryLineOfItsHTML() {
    let seen = "Weekend farmers market\n\nThe orchard stall returns with quince jam.\nView this email in your browser"
    #expect(adding(seen, to: "View this email in your browser (https://example.com/v)")
            == "Weekend farmers market\nThe orchard stall returns with quince jam.")
    #expect(adding(seen, to: "") == "Weekend farmers market\nThe orchard stall returns with quince jam.\nView this email in your browser")
}

@Test func wordsOfOtherScriptsAreWordsAndTheirPunctuationIsNot() {
    #expect(adding("Le marché de Noël ouvre samedi", to: "Le marché de Noël ouvre samedi") == "")
    #expect(adding("Le marché — de Noël « ouvre » samedi", to: "Le marché de Noël ouvre samedi") == "")
    #expect(adding("châtaignes grillées", to: "Le marché de Noël") == "châtaignes grillées")
    #expect(adding("請於3/25前取件", to: "請於3/25前取件") == "")
    #expect(adding("請於3/26前取件", to: "請於3/25前取件") == "請於3/26前取件")
}

@Test func whatItAddsIsBounded() {
    let line = String(repeating: "quince ", count: 100)
    let many = Array(repeating: line, count: 100).joined(separator: "\n")
    let added = adding(many, to: "", maxBytes: 1000)
    #expect(added.utf8.count == 1000 && added.hasPrefix(line + "\n" + "quince "))
}
