import Testing
import JSONLines
@testable import MailParse

/// RFC 9078 reactions: `reaction` holds the emoji of a part with `Content-Disposition: reaction`.
@Suite struct ReactionTests {
    /// As Delta Chat sends one: the reaction is the message's only part.
    @Test func aSinglePartReaction() throws {
        let r = try record("""
            From: bob@example.net
            To: alice@example.org
            Message-ID: <56789@example.net>
            In-Reply-To: <12345@example.org>
            Subject: Meeting
            Date: Mon, 1 Jun 2026 10:00:00 +0000
            Content-Type: text/plain; charset=utf-8
            Content-Disposition: reaction

            👍
            """)
        #expect(r["reaction"] == .string("👍"))
        #expect(r["in_reply_to"]?.strings == ["12345@example.org"])
        #expect(r["text"]?.stringValue?.hasPrefix("👍") == true)  // all it says: its text too
        #expect(r["attachments"]?.count == 0)
    }

    /// As Outlook sends one: a fallback text and HTML for programs that know no reactions, and
    /// the reaction part (base64) after them.
    @Test func aReactionBesideAFallback() throws {
        let r = try record("""
            From: Alex <alex@example.com>
            To: me@example.org
            In-Reply-To: <orig@example.org>
            Date: Mon, 1 Jun 2026 10:00:00 +0000
            Content-Type: multipart/mixed; boundary=M

            --M
            Content-Type: multipart/alternative; boundary=A

            --A
            Content-Type: text/plain; charset=utf-8

            Alex reacted to your message
            --A
            Content-Type: text/html; charset=utf-8

            <p>Alex reacted to your message</p>
            --A--
            --M
            Content-Type: text/plain; charset=utf-8
            Content-Disposition: reaction
            Content-Transfer-Encoding: base64

            8J+RjQ==
            --M--
            """)
        #expect(r["reaction"] == .string("👍"))
        #expect(r["text"]?.stringValue?.hasPrefix("Alex reacted to your message") == true)
        #expect(r["html"]?.stringValue?.contains("reacted") == true)
        #expect(r["attachments"]?.count == 0)
    }

    /// A later alternative is preferred, but a reaction part is no alternative text.
    @Test func aReactionInsideAnAlternative() throws {
        let r = try record("""
            From: bob@example.net
            In-Reply-To: <orig@example.org>
            Content-Type: multipart/alternative; boundary=A

            --A
            Content-Type: text/plain; charset=utf-8

            Bob reacted with a heart
            --A
            Content-Type: text/plain; charset=utf-8
            Content-Disposition: reaction
            Content-Transfer-Encoding: quoted-printable

            =E2=9D=A4=EF=B8=8F
            --A--
            """)
        #expect(r["reaction"] == .string("❤️"))
        #expect(r["text"]?.stringValue?.hasPrefix("Bob reacted with a heart") == true)
        #expect(r["text"]?.stringValue?.contains("❤") == false)
    }

    func reaction(of body: String, disposition: String = "reaction") throws -> JSONValue? {
        try record("From: bob@example.net\nIn-Reply-To: <o@x>\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: \(disposition)\n\n\(body)")["reaction"]
    }

    @Test(arguments: ["👍", "👍 😂", "👍😂", " \t🎉\t\n", "👨‍👩‍👧", "🇫🇷", "👍🏽", "1️⃣", "☹", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"])
    func emojiAreReactions(_ body: String) throws {
        let expected = String(body.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        #expect(try reaction(of: body) == .string(expected))
    }

    /// What is not one line of emoji is no reaction: RFC 9078 has it read as text.
    @Test(arguments: ["Thanks!", "👍 great", "1", "#", "👍\n👍", ":-)", "👍\u{200B}"])
    func otherTextIsNoReaction(_ body: String) throws {
        #expect(try reaction(of: body) == .null)
        let r = try record("From: bob@example.net\nIn-Reply-To: <o@x>\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: reaction\n\n\(body)")
        #expect(r["text"]?.stringValue?.isEmpty == false)
    }

    @Test func anEmptyReactionTakesOneBack() throws {
        #expect(try reaction(of: "") == .string(""))
        #expect(try reaction(of: " \n") == .string(""))
    }

    @Test func onlyAReactionDispositionMakesOne() throws {
        #expect(try reaction(of: "👍", disposition: "inline") == .null)
        let html = try record("From: b@x\nContent-Type: text/html\nContent-Disposition: reaction\n\n👍")
        #expect(html["reaction"] == .null)
    }

    /// A reaction is one line of mail at most: longer is no reaction, and a long part is not
    /// decoded to find out.
    @Test func aLongReactionIsNone() throws {
        let line = String(repeating: "👍", count: Reaction.maxBytes / 4)  // 996 bytes
        #expect(try reaction(of: line) == .string(line))
        #expect(try reaction(of: line + "👍") == .null)
        let huge = String(repeating: "8J+RjQ==", count: 100_000)
        let r = try record("From: b@x\nIn-Reply-To: <o@x>\nContent-Type: text/plain\nContent-Disposition: reaction\nContent-Transfer-Encoding: base64\n\n\(huge)")
        #expect(r["reaction"] == .null)
    }

    /// A reaction inside a forwarded message is that message's, not this one's.
    @Test func aForwardedReactionIsNotThisMessages() throws {
        let r = try record("""
            From: carol@example.net
            Content-Type: multipart/mixed; boundary=M

            --M
            Content-Type: text/plain

            See what Bob sent
            --M
            Content-Type: message/rfc822

            From: bob@example.net
            In-Reply-To: <o@x>
            Content-Type: text/plain; charset=utf-8
            Content-Disposition: reaction

            👍
            --M--
            """)
        #expect(r["reaction"] == .null)
        #expect(r["text"]?.stringValue?.hasPrefix("See what Bob sent") == true)
    }
}
