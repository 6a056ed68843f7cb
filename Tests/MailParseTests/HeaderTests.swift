import Testing
import JSONLines
@testable import MailParse

@Suite struct HeaderTests {
    @Test func unfoldsAndKeepsEveryHeaderInOrder() throws {
        let r = try record("Subject: a long\n  folded\tsubject\nX-Dup: one\nReceived: first\nX-Dup: two\n\nbody\n")
        #expect(r["subject"] == .string("a long  folded\tsubject"))
        #expect(r["headers"]?["x-dup"]?.strings == ["one", "two"])
        if case .object(let members)? = r["headers"] {
            #expect(members.map(\.0) == ["subject", "x-dup", "received"])
        }
    }

    @Test(arguments: [
        ("=?utf-8?B?5pel5pys6Kqe?=", "日本語"),
        ("=?ISO-8859-1?Q?Andr=E9_Pirard?=", "André Pirard"),
        ("=?utf-8?q?a?= =?utf-8?q?b?=", "ab"),  // whitespace between adjacent words goes
        ("=?utf-8?q?a?=\n =?utf-8?q?b?=", "ab"),
        ("x =?utf-8?q?a?= y", "x a y"),
        ("=?utf-8?B?5pel?==?utf-8?B?5pys?=", "日本"),  // no space between words
        ("=?utf-8?B?5pc=?= =?utf-8?B?pQ==?=", "日"),  // one character split across two words
        ("=?big5?B?pKSk5Q==?=", "中文"),
        ("=?utf-8*en?Q?hello?=", "hello"),  // RFC 2231 language
        ("=?utf-8?B?5pel5pys6Kqe?", "=?utf-8?B?5pel5pys6Kqe?"),  // unterminated: left as is
        ("Re:=?utf-8?Q?caf=C3=A9?=", "Re:café"),
        ("=?gb2312?B?1tDOxA?=", "中文"),  // missing padding
        ("=?unknown-x?Q?caf=C3=A9?=", "café"),
        ("=?ks_c_5601-1987?B?x9G x2w==?=", "한글"),  // space inside a B word
        // each ISO-2022-JP word back in ASCII at its end, the next starting with its own escape
        ("=?iso-2022-jp?b?GyRCJDkbKEI=?=\n =?iso-2022-jp?b?GyRCJDkbKEI=?=", "すす"),
        ("=?iso-2022-jp?b?GyRCJDkbKEI=?= =?iso-2022-jp?b?YQ==?=", "すa"),  // the next word in ASCII
    ])
    func decodesEncodedWords(_ raw: String, _ expected: String) throws {
        let r = try record("Subject: \(raw)\n\n")
        #expect(r["subject"] == .string(expected))
    }

    @Test func raw8BitHeadersAreUTF8ElseWindows1252() throws {
        let utf8 = try record(bytes: Array("Subject: caf".utf8) + [0xC3, 0xA9] + Array("\n\n".utf8))
        #expect(utf8["subject"] == .string("café"))
        let latin = try record(bytes: Array("Subject: caf".utf8) + [0xE9, 0x20, 0x93, 0x71, 0x94] + Array("\n\n".utf8))
        #expect(latin["subject"] == .string("café \u{201C}q\u{201D}"))
    }

    @Test func messageIDsTolerateBrokenValues() throws {
        let r = try record("""
            Message-ID: <abc@example.com> (comment)
            In-Reply-To: Your message of Mon, 1 Jan 2024 <parent@example.com>
            References: <a@x> <b@x>
             <c@x>
            References: d@y

            """)
        #expect(r["id"] == .string("abc@example.com"))
        #expect(r["message_id"] == .string("abc@example.com"))
        #expect(r["in_reply_to"]?.strings == ["parent@example.com"])
        #expect(r["references"]?.strings == ["a@x", "b@x", "c@x", "d@y"])
        let bare = try record("Message-ID: no-brackets@example.com\n\n")
        #expect(bare["message_id"] == .string("no-brackets@example.com"))
    }

    @Test func idWithoutMessageIDIsAStableHash() throws {
        let a = try record("Subject: x\n\nbody\n")
        let b = try record("Subject: x\n\nbody\n")
        let c = try record("Subject: y\n\nbody\n")
        #expect(a["message_id"] == .null)
        #expect(a["id"] == b["id"])
        #expect(a["id"] != c["id"])
        #expect(a["id"]?.stringValue?.hasPrefix("sha256:") == true)
    }

    @Test func lineWithoutColonEndsTheHeaders() throws {
        let r = try record("Subject: x\nthis is body text\nmore\n")
        #expect(r["text"] == .string("this is body text\nmore\n"))
        #expect(r["defects"]?.strings.contains("missing_header_body_separator") == true)
    }
}

@Suite struct AddressTests {
    func parse(_ value: String) throws -> [Mailbox] {
        let r = try record("To: \(value)\n\n")
        return (r["to"]?.arrayValue ?? []).map {
            Mailbox(name: $0["name"]?.stringValue ?? "", address: $0["address"]?.stringValue ?? "")
        }
    }

    @Test(arguments: [
        ("a@x.org", [Mailbox(name: "", address: "a@x.org")]),
        ("John Doe <john@x.org>", [Mailbox(name: "John Doe", address: "john@x.org")]),
        ("\"Doe, John\" <john@x.org>, b@y", [Mailbox(name: "Doe, John", address: "john@x.org"), Mailbox(name: "", address: "b@y")]),
        ("john@x.org (John Doe)", [Mailbox(name: "John Doe", address: "john@x.org")]),
        ("Friends: a@x, B <b@y>; c@z", [Mailbox(name: "", address: "a@x"), Mailbox(name: "B", address: "b@y"), Mailbox(name: "", address: "c@z")]),
        ("undisclosed-recipients:;", []),
        ("\"quoted local\"@x.org", [Mailbox(name: "", address: "\"quoted local\"@x.org")]),
        ("\"plain\"@x.org", [Mailbox(name: "", address: "plain@x.org")]),
        // RFC 5322 3.4.1: quotes stay where the local part is no dot-atom without them
        ("\"john..doe\"@example.org", [Mailbox(name: "", address: "\"john..doe\"@example.org")]),
        ("J <\".j\"@x.org>", [Mailbox(name: "J", address: "\".j\"@x.org")]),
        ("\"j.\"@x.org", [Mailbox(name: "", address: "\"j.\"@x.org")]),
        ("\"a@b\"@x.org", [Mailbox(name: "", address: "\"a@b\"@x.org")]),
        ("\"a\\\"b\"@x.org", [Mailbox(name: "", address: "\"a\\\"b\"@x.org")]),
        ("\"a\\\\b\"@x.org", [Mailbox(name: "", address: "\"a\\\\b\"@x.org")]),
        ("\"a[1]\"@x.org", [Mailbox(name: "", address: "\"a[1]\"@x.org")]),
        ("\"o'hara.j+tag\"@x.org", [Mailbox(name: "", address: "o'hara.j+tag@x.org")]),
        ("\"张三\"@例子.广告", [Mailbox(name: "", address: "张三@例子.广告")]),
        ("<@route1,@route2:user@host>", [Mailbox(name: "", address: "user@host")]),
        ("=?utf-8?B?6Zmz576O546y?= <mei@x.tw>", [Mailbox(name: "陳美玲", address: "mei@x.tw")]),
        ("\"=?utf-8?Q?Jos=C3=A9?=\" <jose@x.es>", [Mailbox(name: "José", address: "jose@x.es")]),
        ("Flores, Mary <mary@x.com>", [Mailbox(name: "Flores, Mary", address: "mary@x.com")]),
        ("用户@例子.广告", [Mailbox(name: "", address: "用户@例子.广告")]),
        ("Jürgen <j@bücher.example>", [Mailbox(name: "Jürgen", address: "j@bücher.example")]),
        ("A (nested (comment)) <a@x>", [Mailbox(name: "A", address: "a@x")]),
        ("a@x,,b@y", [Mailbox(name: "", address: "a@x"), Mailbox(name: "", address: "b@y")]),
    ])
    func parsesAddressLists(_ value: String, _ expected: [Mailbox]) throws {
        #expect(try parse(value) == expected)
    }

    @Test func fromSenderReplyToCcBcc() throws {
        let r = try record("From: A <a@x>\nSender: s@x\nReply-To: r1@x, r2@x\nCc: c@x\nBcc: b@x\n\n")
        #expect(r["from"]?["address"] == .string("a@x"))
        #expect(r["from"]?["name"] == .string("A"))
        #expect(r["sender"]?["address"] == .string("s@x"))
        #expect(r["sender"]?["name"] == .null)
        #expect(r["reply_to"]?.count == 2)
        #expect(r["cc"]?[0]?["address"] == .string("c@x"))
        #expect(r["bcc"]?[0]?["address"] == .string("b@x"))
        let none = try record("Subject: x\n\n")
        #expect(none["from"] == .null)
        #expect(none["to"] == .array([]))
    }
}

@Suite struct DateTests {
    @Test(arguments: [
        ("Fri, 21 Nov 1997 09:55:06 -0600", "1997-11-21T15:55:06Z"),
        ("21 Nov 97 09:55:06 GMT", "1997-11-21T09:55:06Z"),
        ("Fri, 21 Nov 1997 09:55 EST", "1997-11-21T14:55:00Z"),
        ("Thu, 13 Feb 69 23:32:54 -0330", "1969-02-14T03:02:54Z"),
        ("Mon, 1 Jan 2024 00:00:00 +0800 (CST)", "2023-12-31T16:00:00Z"),
        ("1 Jan 2024 12:00:00 PDT", "2024-01-01T19:00:00Z"),
        ("Tue,  4 Jun 104 10:00:00 +0000", "2004-06-04T10:00:00Z"),
        ("Wed, 17 Jan 2024 10:00:00 Z", "2024-01-17T10:00:00Z"),
        ("Wed, 17 Jan 2024 10:00:00 A", "2024-01-17T10:00:00Z"),  // military: no information
        ("17 January 2024 10:00:00 +0100", "2024-01-17T09:00:00Z"),
        ("Mon Jan 06 04:49:45 +0000 2020", "2020-01-06T04:49:45Z"),  // Takeout From_ line
        ("Sat Jan  3 01:05:34 1996", "1996-01-03T01:05:34Z"),  // asctime
        ("2024-03-05T06:07:08+02:00", "2024-03-05T04:07:08Z"),
        ("Mon, 29 Feb 2016 23:59:60 +0000", "2016-02-29T23:59:59Z"),
    ])
    func parsesDates(_ text: String, _ expected: String) {
        #expect(MailDate.parse(text).map(MailDate.rfc3339) == expected)
    }

    @Test(arguments: ["", "yesterday", "32 Jan 2024 10:00:00", "30 Feb 2024 10:00:00 +0000", "Mon, 1 Foo 2024 10:00"])
    func rejectsNonDates(_ text: String) {
        #expect(MailDate.parse(text) == nil)
    }

    @Test func badOrMissingDateFallsBackToTheEnvelope() throws {
        let mbox = "From sender@x Mon Jan 06 04:49:45 +0000 2020\nSubject: x\nDate: garbage\n\nbody\n"
        let r = try records(ofMailbox: Array(mbox.utf8))
        #expect(r[0]["date"] == .string("2020-01-06T04:49:45Z"))
        #expect(r[0]["defects"]?.strings.contains("invalid_date") == true)
    }
}

@Suite struct MoreDateTests {
    @Test(arguments: [
        ("12-Jan-2024 10:00:00 +0000", "2024-01-12T10:00:00Z"),
        ("01 Jan 2001 00:01+0000", "2001-01-01T00:01:00Z"),
        ("Mon, 21 Aug 95 13:30:57 -600", "1995-08-21T19:30:57Z"),
        ("Wed, 20 Sep 1995 00:19:00 (EDT) -0400", "1995-09-20T04:19:00Z"),
    ])
    func parsesMoreForms(_ text: String, _ expected: String) {
        #expect(MailDate.parse(text).map(MailDate.rfc3339) == expected)
    }
}
