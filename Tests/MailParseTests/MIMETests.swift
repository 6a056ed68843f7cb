import Testing
import Hashing
import JSONLines
@testable import MailParse

@Suite struct MIMETests {
    @Test func alternativePicksBothBodies() throws {
        let r = try record("""
            Content-Type: multipart/alternative; boundary="b1"

            preamble
            --b1
            Content-Type: text/plain; charset=utf-8

            plain body
            --b1
            Content-Type: text/html; charset=utf-8

            <p>html body</p>
            --b1--
            epilogue
            """)
        #expect(r["text"] == .string("plain body"))
        #expect(r["html"] == .string("<p>html body</p>"))
        #expect(r["attachments"] == .array([]))
        #expect(r["defects"]?.strings.filter { $0 != "missing_date" } == [])
    }

    @Test func relatedKeepsInlineImagesAsAttachmentsWithContentID() throws {
        let r = try record("""
            Content-Type: multipart/mixed; boundary=outer

            --outer
            Content-Type: multipart/alternative; boundary=alt

            --alt
            Content-Type: text/plain

            text
            --alt
            Content-Type: multipart/related; boundary=rel

            --rel
            Content-Type: text/html

            <img src="cid:logo@x">
            --rel
            Content-Type: image/png
            Content-ID: <logo@x>
            Content-Transfer-Encoding: base64

            iVBORw0KGgo=
            --rel--
            --alt--
            --outer
            Content-Type: application/pdf; name="report.pdf"
            Content-Disposition: attachment; filename="report.pdf"
            Content-Transfer-Encoding: base64

            JVBERi0xLjQK
            --outer
            Content-Type: text/plain
            Content-Disposition: inline

            a footer added by a list
            --outer--
            """)
        // a paragraph of its own; not `appended`: an attachment is among the children before it
        #expect(r["text"] == .string("text\n\na footer added by a list"))
        #expect(r["text_parts"]?.arrayValue?.map { $0["appended"] } == [.bool(false), .bool(false)])
        #expect(r["html"] == .string("<img src=\"cid:logo@x\">"))
        let atts = r["attachments"]?.arrayValue ?? []
        #expect(atts.count == 2)
        #expect(atts[0]["content_type"] == .string("image/png"))
        #expect(atts[0]["content_id"] == .string("logo@x"))
        #expect(atts[0]["size"] == .number("8"))
        #expect(atts[0]["part"] == .string("1.2.2"))
        #expect(atts[1]["filename"] == .string("report.pdf"))
        #expect(atts[1]["disposition"] == .string("attachment"))
        #expect(atts[1]["sha256"] == .string(SHA256.hex(Array("%PDF-1.4\n".utf8))))
    }

    @Test func missingEndBoundaryIsRecovered() throws {
        let r = try record("Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/plain\n\nhello\n")
        #expect(r["text"] == .string("hello\n"))
        #expect(r["defects"]?.strings.contains("missing_end_boundary") == true)
    }

    @Test func missingBoundaryInBodyReadsAsText() throws {
        let r = try record("Content-Type: multipart/mixed; boundary=x\n\njust text\n")
        #expect(r["text"] == .string("just text\n"))
        #expect(r["defects"]?.strings.contains("missing_start_boundary") == true)
    }

    @Test func longerBoundaryIsNotThisOne() throws {
        let r = try record("""
            Content-Type: multipart/mixed; boundary=ab

            --ab
            Content-Type: multipart/alternative; boundary=abc

            --abc
            Content-Type: text/plain

            inner
            --abc--
            --ab--
            """)
        #expect(r["text"] == .string("inner"))
        #expect(r["defects"]?.strings.filter { $0 != "missing_date" } == [])
    }

    @Test func delimiterFollowedByTextWhenNoCleanOneExists() throws {
        // RFC 2046: the delimiter need only begin the line (mime4j's ending-boundaries.msg)
        let r = try record("Content-Type: multipart/mixed; boundary=b\n\n--b ignored text\nContent-Type: text/plain\n\nfirst part\n--b-- ignored too\nepilogue\n")
        #expect(r["text"] == .string("first part"))
        #expect(r["defects"]?.strings.contains("text_after_boundary") == true)
    }

    @Test func nestingIsCapped() throws {
        var message = ""
        for depth in 0..<300 { message += "Content-Type: multipart/mixed; boundary=b\(depth)\n\n--b\(depth)\n" }
        message += "Content-Type: text/plain\n\ndeep\n"
        let r = try record(message)
        #expect(r["defects"]?.strings.contains("nesting_too_deep") == true)
    }

    @Test func forwardedMessageIsParsed() throws {
        let r = try record("""
            Content-Type: multipart/mixed; boundary=m

            --m
            Content-Type: text/plain

            see below
            --m
            Content-Type: message/rfc822

            From: =?utf-8?Q?Ren=C3=A9e?= <renee@x.fr>
            Subject: =?utf-8?Q?r=C3=A9union?=
            Date: Mon, 1 Jan 2024 10:00:00 +0100
            Message-ID: <inner@x.fr>

            inner body
            --m--
            """)
        #expect(r["text"] == .string("see below"))
        let att = r["attachments"]?[0]
        #expect(att?["content_type"] == .string("message/rfc822"))
        #expect(att?["message"]?["subject"] == .string("réunion"))
        #expect(att?["message"]?["from"]?["name"] == .string("Renée"))
        #expect(att?["message"]?["date"] == .string("2024-01-01T09:00:00Z"))
        #expect(att?["message"]?["message_id"] == .string("inner@x.fr"))
    }

    @Test func transferEncodings() throws {
        let qp = try record("Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\ncaf=E9 soft=\n break=3D  \nx=ZZ\n")
        #expect(qp["text"] == .string("café soft break=\nx=ZZ\n"))
        let b64 = try record("Content-Transfer-Encoding: base64\nContent-Type: text/plain; charset=utf-8\n\n5pel5pys\n6Kqe\n")
        #expect(b64["text"] == .string("日本語"))
        let broken = try record("Content-Transfer-Encoding: base64\n\naGVs!bG8\n")
        #expect(broken["text"] == .string("hello"))
        #expect(broken["defects"]?.strings.contains("invalid_base64") == true)
        let upper = try record("Content-Transfer-Encoding: BASE64\n\naGk=\n")
        #expect(upper["text"] == .string("hi"))
    }

    @Test func uuencodedFilesBecomeAttachments() throws {
        let r = try record("Subject: uu\n\nHere it is:\nbegin 644 hi.txt\n#:&D*\n`\nend\nbye\n")
        #expect(r["text"] == .string("Here it is:\nbye\n"))
        #expect(r["attachments"]?[0]?["filename"] == .string("hi.txt"))
        #expect(r["attachments"]?[0]?["size"] == .number("3"))
        #expect(r["attachments"]?[0]?["sha256"] == .string(SHA256.hex(Array("hi\n".utf8))))
        let cte = try record("Content-Type: application/octet-stream\nContent-Transfer-Encoding: x-uuencode\n\nbegin 600 a.bin\n#:&D*\n`\nend\n")
        #expect(cte["attachments"]?[0]?["size"] == .number("3"))
    }

    @Test func rfc2231Filenames() throws {
        let r = try record("""
            Content-Type: multipart/mixed; boundary=z

            --z
            Content-Type: application/pdf
            Content-Disposition: attachment;
             filename*0*=utf-8''%E6%97%A5%E6%9C%AC;
             filename*1*=%E8%AA%9E;
             filename*2=".pdf"

            x
            --z
            Content-Type: application/octet-stream; name="=?utf-8?B?5paH5Lu2LnR4dA==?="

            y
            --z
            Content-Type: text/plain; name*=iso-8859-1'fr'r%E9sum%E9.txt
            Content-Disposition: attachment

            z
            --z--
            """)
        let names = (r["attachments"]?.arrayValue ?? []).map { $0["filename"]?.stringValue }
        #expect(names == ["日本語.pdf", "文件.txt", "résumé.txt"])
    }

    @Test func charsetsOfBodies() throws {
        let big5 = try record(bytes: Array("Content-Type: text/plain; charset=big5\n\n".utf8) + [0xA4, 0xA4, 0xA4, 0xE5])
        #expect(big5["text"] == .string("中文"))
        let undeclared = try record(bytes: Array("Subject: x\n\n".utf8) + [0xE9, 0x74, 0xE9])
        #expect(undeclared["text"] == .string("été"))
        #expect(undeclared["defects"]?.strings.contains("undeclared_8bit") == true)
        let meta = try record(bytes: Array("Content-Type: text/html\n\n<meta charset=\"shift_jis\"><p>".utf8) + [0x82, 0xA0])
        #expect(meta["html"] == .string("<meta charset=\"shift_jis\"><p>あ"))
    }

    @Test func calendarInvitations() throws {
        let r = try record("""
            Content-Type: multipart/alternative; boundary=c

            --c
            Content-Type: text/plain

            Join us
            --c
            Content-Type: text/calendar; method=REQUEST; charset=utf-8

            BEGIN:VCALENDAR
            END:VCALENDAR
            --c--
            """)
        #expect(r["text"] == .string("Join us"))
        #expect(r["calendar"]?.strings == ["BEGIN:VCALENDAR\nEND:VCALENDAR"])
        #expect(r["attachments"] == .array([]))
    }

    /// An .ics attachment names no charset: iCalendar's own default, UTF-8, applies (Apple's
    /// invitations), not "undeclared 8-bit".
    @Test func calendarAttachmentIsUTF8ByDefault() throws {
        let r = try record(bytes: Array("""
            Content-Type: multipart/mixed; boundary=c

            --c
            Content-Type: application/ics; name=invite.ics
            Content-Transfer-Encoding: 8bit

            SUMMARY:爸爸生日
            --c--
            """.utf8))
        #expect(r["calendar"]?.strings == ["SUMMARY:爸爸生日"])
        #expect(r["defects"]?.strings.contains("undeclared_8bit") == false)
    }

    @Test func formatFlowedIsReported() throws {
        let r = try record("Content-Type: text/plain; format=flowed; delsp=yes\n\nhi \nthere\n")
        #expect(r["text_format"] == .string("flowed_delsp"))
        let plain = try record("Content-Type: text/html\n\n<p>x</p>")
        #expect(plain["text"] == .null)
        #expect(plain["text_format"] == .null)
    }

    @Test func crlfMessages() throws {
        let r = try record("Subject: crlf\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n--q\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2\r\n--q--\r\n")
        #expect(r["subject"] == .string("crlf"))
        #expect(r["text"] == .string("line1\nline2"))  // CRLF read as LF
    }
}

/// Base64 against a plain reference, for every length and line layout, with the encoded text
/// inside a larger buffer (the decoder must not read past its end).
@Test func base64MatchesAReference() {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < data.count {
            let chunk = Array(data[i..<min(i + 3, data.count)])
            let v = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for k in 0..<4 { out.append(k <= chunk.count ? alphabet[(v >> (18 - 6 * k)) & 63] : UInt8(ascii: "=")) }
            i += 3
        }
        return out
    }
    for length in 0..<40 {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let encoded = encode(data)
        for lineLength in [0, 4, 8, 12, 76] {
            var text: [UInt8] = []
            for (k, c) in encoded.enumerated() {
                if lineLength > 0, k > 0, k % lineLength == 0 { text += [0x0D, 0x0A] }
                text.append(c)
            }
            let buffer = text + Array("?=garbage".utf8)
            let (bytes, invalid) = buffer.withUnsafeBytes { Base64.decode(UnsafeRawBufferPointer(rebasing: $0[..<text.count])) }
            #expect(bytes == data, "length \(length), lines of \(lineLength)")
            #expect(!invalid, "length \(length), lines of \(lineLength)")
        }
    }
}
