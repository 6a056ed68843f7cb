import Testing
@testable import BodyText

@Suite struct FlowedTextTests {
    @Test func softBreaksJoinAndSignatureStays() {
        let text = "Hello there, this is \nflowed text.\n-- \nAlex\n"
        #expect(FlowedText.unflow(text, delSp: false) == "Hello there, this is flowed text.\n-- \nAlex\n")
    }

    @Test func delSpRemovesTheSpace() {
        #expect(FlowedText.unflow("Zusammen\u{20}\ngeschrieben\n", delSp: true) == "Zusammengeschrieben\n")
    }

    @Test func quoteDepthsDoNotJoin() {
        let text = "> quoted \n> more\nnew \ntext\n"
        #expect(FlowedText.unflow(text, delSp: false) == "> quoted more\nnew text\n")
    }

    @Test func spaceStuffingRemoved() {
        #expect(FlowedText.unflow(" From here\n", delSp: false) == "From here\n")
    }
}
