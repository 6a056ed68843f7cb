import Testing
@testable import MailStore

// What the search index takes of a message's HTML alternative: the words of the text a reader
// sees of it that the body text lacks, each once (SearchText.wordsAdding).

private func adding(_ seen: String, to plain: String, maxBytes: Int = 1 << 20) -> String {
    SearchText.wordsAdding(Array(seen.utf8), to: plain, maxBytes: maxBytes)
}

@Test func htmlThatSaysWhatThePlainTextSaysAddsNothing() {
    let plain = "Choir practice moves to the parish hall on Thursday.\n\nSee you there!"
    #expect(adding("Choir practice moves to the parish hall on Thursday.\nSee you there!", to: plain) == "")
    // case and punctuation do not make a word new
    #expect(adding("CHOIR practice -- moves to the Parish Hall, on thursday", to: plain) == "")
    #expect(adding("Choir practice moves.\nP.S. bring a thermos, the heating is broken.", to: plain)
            == "P S bring a thermos heating is broken")
}

@Test func eachNewWordOnceInTheOrderItFirstAppears() {
    let seen = "Weekend farmers market\n\nThe farmers' orchard stall returns with quince jam.\nView this email in your browser"
    #expect(adding(seen, to: "View this email in your browser (https://example.com/v)")
            == "Weekend farmers market The orchard stall returns with quince jam")
    #expect(adding("Quince, quince and QUINCE", to: "and") == "Quince")
}

@Test func wordsOfOtherScriptsAreWordsAndTheirPunctuationIsNot() {
    #expect(adding("Le marché de Noël ouvre samedi", to: "Le marché de Noël ouvre samedi") == "")
    #expect(adding("Le marché — de Noël « ouvre » samedi", to: "Le marché de Noël ouvre samedi") == "")
    #expect(adding("châtaignes grillées", to: "Le marché de Noël") == "châtaignes grillées")
    #expect(adding("請於3/25前取件", to: "請於3/25前取件") == "")
    #expect(adding("本週精選 ‌ ‌ 請於3/26前取件", to: "請於3/25前取件") == "本週精選 26前取件")
}

@Test func whatItAddsIsBounded() {
    let words = (0..<1000).map { "word\($0)" }.joined(separator: " ")
    let added = adding(words, to: "", maxBytes: 100)
    #expect(added.utf8.count < 100 && added.hasPrefix("word0 word1 word2"))
}

/// SearchText.indexed as it was written first, a scalar at a time: the byte-level one must write
/// the same text, or a store's index would not take out what an older build put in.
private func indexedAScalarAtATime(_ text: String) -> String {
    var out: [UInt8] = []
    var previous: Unicode.Scalar?
    for s in text.unicodeScalars {
        guard SearchText.isIdeographic(s) else {
            if previous != nil { out.append(0x20) }
            previous = nil
            out.append(contentsOf: UTF8.encode(s)!)
            continue
        }
        if let p = previous {
            out.append(0x20)
            out.append(contentsOf: UTF8.encode(p)!)
            out.append(contentsOf: UTF8.encode(s)!)
        }
        out.append(0x20)
        out.append(contentsOf: UTF8.encode(s)!)
        previous = s
    }
    if previous != nil { out.append(0x20) }
    return String(decoding: out, as: UTF8.self)
}

@Test func ideographicRunsAreWrittenAsTheyWereAScalarAtATime() {
    let pieces = ["請於3/25前取件", "黑貓", " ", "ありがとう", "한국어", "café", "→", "¥3,980", "\u{20000}", "𝄞", "ｱｲｳ", "a", "\n", "—", "本週精選"]
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
        let text = (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
        #expect(SearchText.indexed(text) == indexedAScalarAtATime(text), "\(text)")
    }
    #expect(SearchText.indexed("請於3/25前取件") == " 請 請於 於 3/25 前 前取 取 取件 件 ")
}

@Test func wordHashesHoldEachHashOnceAsTheyGrow() {
    var set = SearchText.WordHashes()
    var rng = SystemRandomNumberGenerator()
    let hashes = (0..<5000).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) } + [0, 1, 0]
    var seen = Set<UInt64>()
    for h in hashes {
        // 0 and 1 are one hash to it (0 marks an empty slot): a word told apart wrongly is only indexed twice
        let key = h == 0 ? 1 : h
        #expect(set.insert(h) == seen.insert(key).inserted)
    }
}
