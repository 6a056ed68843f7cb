import JSONLines
import Testing
@testable import MailParse

/// How text parts are joined into `text`, where each lies (`text_parts`), and which has the
/// shape of a list's footer part (`appended`).
@Suite struct TextPartsTests {
    private func spans(_ r: JSONValue) -> [(part: String, start: Int, end: Int, appended: Bool)] {
        (r["text_parts"]?.arrayValue ?? []).map {
            ($0["part"]?.stringValue ?? "", $0["start"]?.intValue ?? -1, $0["end"]?.intValue ?? -1, $0["appended"] == .bool(true))
        }
    }

    private func mixed(_ parts: String...) -> String {
        "Content-Type: multipart/mixed; boundary=m\n\n" + parts.map { "--m\n\($0)\n" }.joined() + "--m--\n"
    }

    private let signature = "Content-Type: application/pgp-signature\nContent-Disposition: attachment; filename=signature.asc\n\nSIG"

    @Test func partsAreJoinedWithABlankLine() throws {
        let r = try record(mixed("Content-Type: text/plain\n\nfirst", "Content-Type: text/plain\n\nsecond\n", "Content-Type: text/plain\n\nthird\n\n"))
        #expect(r["text"] == .string("first\n\nsecond\n\nthird\n\n"))
        let s = spans(r)
        #expect(s.map(\.part) == ["1", "2", "3"])
        #expect(s.map(\.start) == [0, 7, 15])
        #expect(s.map(\.end) == [5, 14, 22])
    }

    @Test func anEmptyPartAddsNoBreak() throws {
        let r = try record(mixed("Content-Type: text/plain\n\nfirst\n", "Content-Type: text/plain\n\n", "Content-Type: text/plain\n\nlast\n"))
        #expect(r["text"] == .string("first\n\nlast\n"))
    }

    @Test func oneTextPart() throws {
        let r = try record("Content-Type: text/plain\n\nhello\n")
        #expect(spans(r).count == 1)
        #expect(spans(r).first?.appended == false)
        #expect(try record("Content-Type: image/png\n\nxx")["text_parts"] == .array([]))
    }

    @Test func aFooterPartAfterASignedPostIsAppended() throws {
        let signed = "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=s\n\n--s\nContent-Type: text/plain\n\npost\n--s\n\(signature)\n--s--"
        let r = try record(mixed(signed, "Content-Type: text/plain\n\nlist footer\n"))
        #expect(spans(r).map(\.part) == ["1.1", "2"])
        #expect(spans(r).map(\.appended) == [false, true])
    }

    @Test func aFooterPartAfterAPlainOrAlternativePostIsAppended() throws {
        #expect(spans(try record(mixed("Content-Type: text/plain\n\npost", "Content-Type: text/plain\n\nfooter"))).map(\.appended) == [false, true])
        let alternative = "Content-Type: multipart/alternative; boundary=a\n\n--a\nContent-Type: text/plain\n\npost\n--a\nContent-Type: text/html\n\n<p>post</p>\n--a--"
        #expect(spans(try record(mixed(alternative, "Content-Type: text/plain\n\nfooter"))).map(\.appended) == [false, true])
    }

    @Test func textAroundAnAttachmentIsNotAppended() throws {
        let r = try record(mixed("Content-Type: text/plain\n\nsee the map", "Content-Type: image/png; name=map.png\n\nPNG",
                                 "Content-Type: text/plain\n\nmeet at the bridge"))
        #expect(spans(r).map(\.appended) == [false, false])
    }

    @Test func partsInsideASignatureAreNotAppended() throws {
        let inner = "Content-Type: multipart/mixed; boundary=i\n\n--i\nContent-Type: text/plain\n\none\n--i\nContent-Type: text/plain\n\ntwo\n--i--"
        let r = try record("Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=s\n\n--s\n\(inner)\n--s\n\(signature)\n--s--\n")
        #expect(spans(r).map(\.part) == ["1.1", "1.2"])
        #expect(spans(r).map(\.appended) == [false, false])
    }

    @Test func anAttachedTextFileIsNoTextPart() throws {
        let r = try record(mixed("Content-Type: text/plain\n\npost", "Content-Type: text/plain\nContent-Disposition: attachment; filename=notes.txt\n\nnotes"))
        #expect(spans(r).map(\.part) == ["1"])
        #expect(r["attachments"]?[0]?["filename"] == .string("notes.txt"))
    }

    @Test func aPostAfterAHeaderBlockPartIsText() throws {
        // Schleuder: its header block first, then the post (an alternative, or a signed one)
        let alternative = "Content-Type: multipart/alternative; boundary=a\n\n--a\nContent-Type: text/plain\n\nthe post\n--a\nContent-Type: text/html\n\n<p>the post</p>\n--a--"
        let r = try record(mixed("Content-Type: text/plain\n\nFrom: a@example.org\nSig: Unsigned\n", alternative))
        #expect(r["text"] == .string("From: a@example.org\nSig: Unsigned\n\nthe post"))
        #expect(r["html"] == .string("<p>the post</p>"))
        #expect(r["attachments"]?.arrayValue?.isEmpty == true)
        // after an attachment it stays one
        let late = try record(mixed("Content-Type: text/plain\n\nhi", "Content-Type: image/png\n\nPNG", alternative))
        #expect(late["text"] == .string("hi"))
    }
}
