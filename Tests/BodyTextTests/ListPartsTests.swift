import JSONLines
import Testing
@testable import BodyText

/// A list's header block and footer part, set aside from the post by the message's structure.
@Suite struct ListPartsTests {
    /// Spans for the pieces of `text` joined with blank lines; `appended` marks the last.
    private func spans(_ pieces: [String], appendedLast: Bool) -> (text: [UInt8], spans: [ListParts.Span]) {
        var text: [UInt8] = []
        var spans: [ListParts.Span] = []
        for (k, piece) in pieces.enumerated() {
            if k > 0 { text += Array("\n\n".utf8) }
            spans.append(ListParts.Span(start: text.count, end: text.count + piece.utf8.count, appended: appendedLast && k == pieces.count - 1))
            text += Array(piece.utf8)
        }
        return (text, spans)
    }

    private func find(_ pieces: [String], appendedLast: Bool = true, signed: Bool = false, fromList: Bool = true) -> (ListParts?, [UInt8]) {
        let (text, s) = spans(pieces, appendedLast: appendedLast)
        return (ListParts.find(s, in: text, signed: signed, fromList: fromList), text)
    }

    private func string(_ text: [UInt8], _ range: Range<Int>?) -> String? {
        range.map { String(decoding: text[$0], as: UTF8.self) }
    }

    private let schleuder = "From: Ben <ben@example.com>\nTo: list@example.org\nCc: \nDate: Tue, 3 Nov 2026 18:01:57 +0100\nSig: Unsigned\nEnc: Unencrypted"

    @Test func headerBlockBeforeThePost() {
        let (found, text) = find([schleuder, "the post"], appendedLast: true)
        #expect(string(text, found?.header) == schleuder)
        #expect(found?.footer == nil)  // the post is the last part: not a footer
        #expect(string(text, found?.post) == "the post")
    }

    @Test func headerBlockAloneBeforeAnHTMLPost() {
        let (text, s) = spans([schleuder], appendedLast: false)
        let found = ListParts.find(s, in: text, signed: false, fromList: true, hasHTML: true)
        #expect(found?.postIsHTML == true)
        #expect(string(text, found?.header) == schleuder)
        #expect(ListParts.find(s, in: text, signed: false, fromList: true, hasHTML: false) == nil)
        let (plain, one) = spans(["just text"], appendedLast: false)
        #expect(ListParts.find(one, in: plain, signed: false, fromList: true, hasHTML: true) == nil)
    }

    @Test func headerBlockWithAWrappedLine() {
        #expect(ListParts.isHeaderBlock(ArraySlice("From: a@x.org\nTo: l@x.org,\n  m@x.org\nSig: Good signature\n".utf8)))
        #expect(!ListParts.isHeaderBlock(ArraySlice("To: everyone\nDate: Saturday\n".utf8)))  // no From:
        #expect(!ListParts.isHeaderBlock(ArraySlice("From: me\nsee you there\n".utf8)))
        #expect(!ListParts.isHeaderBlock(ArraySlice("From: me\nhttp://x.org: y\n".utf8)))
    }

    @Test func headerBlockPostAndFooter() {
        let (found, text) = find([schleuder, "the post", "list footer"])
        #expect(string(text, found?.header) == schleuder)
        #expect(string(text, found?.footer) == "list footer")
        #expect(string(text, found?.post) == "the post")
    }

    @Test func footerNeedsASignedPostOrAList() {
        #expect(find(["post", "footer"], signed: false, fromList: false).0 == nil)
        #expect(find(["post", "footer"], signed: true, fromList: false).0?.footer != nil)
        #expect(find(["post", "footer"], signed: false, fromList: true).0?.footer != nil)
    }

    @Test func footerIsShortAndAppended() {
        let long = (1...13).map { "line \($0)" }.joined(separator: "\n")
        #expect(find(["post", long]).0 == nil)
        #expect(find(["post", String(repeating: "x", count: ListParts.footerBytes + 1)]).0 == nil)
        #expect(find(["post", "footer"], appendedLast: false).0 == nil)
    }

    @Test func aFooterAloneIsThePost() {
        #expect(find(["footer"]).0 == nil)
        #expect(find(["", "footer"]).0 == nil)
    }
}
