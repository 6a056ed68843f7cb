import Testing
@testable import MailKind

@Suite struct HeaderStamp {
    let fields: [(name: String, value: String)] = [("X-Mail-Kind", "newsletter"), ("X-Newsletter", "yes")]

    @Test func addsFieldsAtTheEndOfTheHeaderAndKeepsEveryOtherByte() {
        let message = "From: a@example.com\nSubject: hi\n\nbody\n\nmore\n"
        let out = String(decoding: stampHeaders(Array(message.utf8), fields), as: UTF8.self)
        #expect(out == "From: a@example.com\nSubject: hi\nX-Mail-Kind: newsletter\nX-Newsletter: yes\n\nbody\n\nmore\n")
    }

    @Test func replacesForgedFieldsWithTheirContinuationLines() {
        let message = "X-Newsletter: no\n  folded\nFrom: a@example.com\nx-mail-kind: personal\n\nX-Newsletter: in the body stays\n"
        let out = String(decoding: stampHeaders(Array(message.utf8), fields), as: UTF8.self)
        #expect(out == "From: a@example.com\nX-Mail-Kind: newsletter\nX-Newsletter: yes\n\nX-Newsletter: in the body stays\n")
    }

    @Test func keepsTheMboxFromLineFirstAndCRLFLineEnds() {
        let message = "From a@example.com Mon Mar  2 01:14:58 2026\r\nFrom: a@example.com\r\n\r\nbody\r\n"
        let out = String(decoding: stampHeaders(Array(message.utf8), fields), as: UTF8.self)
        #expect(out == "From a@example.com Mon Mar  2 01:14:58 2026\r\nFrom: a@example.com\r\nX-Mail-Kind: newsletter\r\nX-Newsletter: yes\r\n\r\nbody\r\n")
    }

    @Test func aMessageThatIsOnlyHeadersGetsItsBlankLine() {
        let out = String(decoding: stampHeaders(Array("Subject: x".utf8), fields), as: UTF8.self)
        #expect(out == "Subject: x\nX-Mail-Kind: newsletter\nX-Newsletter: yes\n\n")
    }
}
