import Testing
import Glibc
import JSONLines
@testable import MailParse

@Suite struct ReportTests {
    @Test func deliveryStatusNotification() throws {
        let r = try record("""
            From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
            To: me@example.net
            Subject: Undelivered Mail Returned to Sender
            Content-Type: multipart/report; report-type=delivery-status; boundary=B

            --B
            Content-Type: text/plain

            Your message could not be delivered.
            --B
            Content-Type: message/delivery-status

            Reporting-MTA: dns; mx.example.net

            Final-Recipient: rfc822; one@example.org
            Action: failed
            Status: 5.1.1 (bad mailbox)
            Diagnostic-Code: smtp; 550 5.1.1 <one@example.org>: User
                unknown

            Final-Recipient: rfc822; two@example.org
            Original-Recipient: rfc822;Two@Example.org
            Action: delayed
            Status: 4.4.1
            --B
            Content-Type: text/rfc822-headers

            Message-ID: <orig@example.net>
            Subject: hello
            --B--
            """)
        let report = try #require(r["report"])
        #expect(report["type"] == .string("failed"))  // the worst action of the two
        #expect(report["original_message_id"] == .string("orig@example.net"))
        #expect(report["recipients"]?.count == 2)
        #expect(report["recipients"]?[0] == .object([
            ("address", .string("one@example.org")), ("action", .string("failed")), ("status", .string("5.1.1")),
            ("diagnostic", .string("550 5.1.1 <one@example.org>: User unknown")),
        ]))
        // Original-Recipient, as the sender wrote it, before Final-Recipient
        #expect(report["recipients"]?[1]?["address"] == .string("Two@Example.org"))
        #expect(report["recipients"]?[1]?["action"] == .string("delayed"))
        #expect(r["defects"]?.strings.contains("guessed_report") == false)
    }

    @Test func delayedAndDeliveredReports() throws {
        func report(action: String) throws -> JSONValue? {
            try record("""
                From: postmaster@example.net
                Subject: Delivery Status Notification
                Content-Type: multipart/report; report-type=delivery-status; boundary=B

                --B
                Content-Type: message/delivery-status

                Final-Recipient: rfc822; one@example.org
                Action: \(action)
                Status: 2.0.0
                --B--
                """)["report"]?["type"]
        }
        #expect(try report(action: "delayed") == .string("delayed"))
        #expect(try report(action: "delivered") == .string("delivered"))
        #expect(try report(action: "relayed") == .string("delivered"))
        #expect(try report(action: "Failed") == .string("failed"))
    }

    @Test(arguments: [("displayed", "read"), ("deleted", "not_read"), ("denied", "not_read"), ("displayed/error", "read")])
    func dispositionNotification(disposition: String, type: String) throws {
        let r = try record("""
            From: Alex <alex@example.org>
            Subject: Return Receipt (displayed) - hello
            In-Reply-To: <other@example.net>
            Content-Type: multipart/report; report-type=disposition-notification; boundary=B

            --B
            Content-Type: text/plain

            This is a Return Receipt.
            --B
            Content-Type: message/disposition-notification

            Reporting-UA: example.org; Mozilla Thunderbird
            Final-Recipient: rfc822;alex@example.org
            Original-Message-ID: <orig@example.net>
            Disposition: manual-action/MDN-sent-manually; \(disposition)
            --B--
            """)
        let report = try #require(r["report"])
        #expect(report["type"] == .string(type))
        // Original-Message-ID before In-Reply-To
        #expect(report["original_message_id"] == .string("orig@example.net"))
        #expect(report["recipients"]?[0]?["address"] == .string("alex@example.org"))
        #expect(report["recipients"]?[0]?["action"] == .string(disposition.split(separator: "/")[0].lowercased()))
        #expect(report["recipients"]?[0]?["status"] == .null)
    }

    @Test func originalFromAttachedMessageThenInReplyTo() throws {
        let attached = try record("""
            From: MAILER-DAEMON@example.net
            Subject: Undeliverable: hi
            In-Reply-To: <thread@example.net>
            Content-Type: multipart/report; report-type=delivery-status; boundary=B

            --B
            Content-Type: message/delivery-status

            Final-Recipient: rfc822; one@example.org
            Action: failed
            --B
            Content-Type: message/rfc822

            Message-ID: <attached@example.net>
            Subject: hi

            body
            --B--
            """)
        #expect(attached["report"]?["original_message_id"] == .string("attached@example.net"))
        let threaded = try record("""
            From: MAILER-DAEMON@example.net
            Subject: Undeliverable: hi
            References: <first@example.net> <last@example.net>
            Content-Type: multipart/report; report-type=delivery-status; boundary=B

            --B
            Content-Type: message/delivery-status

            Final-Recipient: rfc822; one@example.org
            Action: failed
            --B--
            """)
        #expect(threaded["report"]?["original_message_id"] == .string("last@example.net"))
    }

    @Test func eximPlainTextBounceIsGuessed() throws {
        let r = try record("""
            From: Mail Delivery System <Mailer-Daemon@smtp.example.net>
            To: me@example.net
            Subject: Mail delivery failed: returning message to sender

            This message was created automatically by mail delivery software.

            A message that you sent could not be delivered to one or more of its
            recipients. This is a permanent error. The following address(es) failed:

              gone@example.org
                SMTP error from remote mail server after RCPT TO:<gone@example.org>:
                550 5.1.1 No such user

            ------ This is a copy of the message, including all the headers. ------

            Message-ID: <copy@example.net>
            From: me@example.net
            To: gone@example.org, also@example.org

            hi
            """)
        let report = try #require(r["report"])
        #expect(report["type"] == .string("failed"))
        #expect(report["original_message_id"] == .string("copy@example.net"))
        // the copy's own To names also@example.org, which did not fail
        #expect(report["recipients"] == .array([.object([
            ("address", .string("gone@example.org")), ("action", .string("failed")), ("status", .string("5.1.1")),
            ("diagnostic", .string("550 5.1.1 No such user")),
        ])]))
        #expect(r["defects"]?.strings.contains("guessed_report") == true)
    }

    @Test func aMislabelledStatusPartBeforeTheRealOne() throws {
        let r = try record("""
            From: Mail Administrator <Postmaster@example.com>
            Subject: Mail System Error - Returned Mail
            Content-Type: multipart/report; report-type=delivery-status; boundary=B

            --B
            Content-Type: message/delivery-status

            This message was undeliverable: <u@example.com> has restricted mail.
            --B
            Content-Type: message/delivery-status

            Final-Recipient: RFC822; <u@example.com>
            Action: failed
            Status: 5.3.0
            --B--
            """)
        #expect(r["report"]?["recipients"]?[0]?["status"] == .string("5.3.0"))
        #expect(r["defects"]?.strings.contains("guessed_report") == false)
    }

    @Test func theQuotedOriginalStartsAtItsHeadersWhenNoLineSaysSo() throws {
        let r = try record("""
            From: Postmaster@example.com
            Subject: Mail System Error - Returned Mail

            The message was not delivered to:

                 gone@example.com

            Received: from a.example.org by example.com; Wed, 18 Dec 1996 16:58:30 -0500
            Message-Id: <orig@example.org>
            From: someone@example.org
            To: gone@example.com, other@example.org
            """)
        #expect(r["report"]?["original_message_id"] == .string("orig@example.org"))
        #expect(r["report"]?["recipients"]?.arrayValue?.compactMap { $0["address"]?.stringValue } == ["gone@example.com"])
    }

    @Test func delayWordingMakesADelayedReport() throws {
        let r = try record("""
            From: MAILER-DAEMON@example.net
            To: me@example.net
            Subject: Warning: message 1abc delayed 24 hours

            A message that you sent has not yet been delivered to one or more of its
            recipients after more than 24 hours on the queue.

              slow@example.org
            """)
        #expect(r["report"]?["type"] == .string("delayed"))
        #expect(r["report"]?["recipients"]?[0]?["address"] == .string("slow@example.org"))
    }

    @Test func outlookPlainReadReceipt() throws {
        let r = try record("""
            From: Taylor <taylor@example.com>
            Subject: Not read: minutes
            In-Reply-To: <minutes@example.net>

            Your message

              Subject: minutes

            was deleted without being read on 04/05/2010 14:22.
            """)
        #expect(r["report"]?["type"] == .string("not_read"))
        #expect(r["report"]?["original_message_id"] == .string("minutes@example.net"))
        #expect(r["report"]?["recipients"]?[0]?["address"] == .string("taylor@example.com"))
    }

    @Test(arguments: [
        // a person forwarding a bounce
        "From: Me <me@example.net>\nSubject: Fwd: Undelivered Mail Returned to Sender\n\nmy message could not be delivered, why?\n",
        // the postmaster writing about something else
        "From: postmaster@example.net\nSubject: Your mailbox is almost full\n\nDelete some mail.\n",
        // a subject that starts with a verb
        "From: Kim <kim@example.org>\nSubject: Read: The Dispossessed\n\nIt was read on the train.\n",
        // a parcel, not a message, that could not be delivered
        "From: Parcel Service <notify@parcels.example.com>\nSubject: Delivery failed: your parcel 1Z999\n\nYour parcel could not be delivered today. We will retry tomorrow.\n",
        // the postmaster about a full mailbox, naming nobody else
        "From: postmaster@example.net\nTo: me@example.net\nSubject: Quota warning\n\nYour mailbox is full: new mail to me@example.net could not be delivered.\n",
        // an out-of-office reply
        "From: Alex <alex@example.org>\nSubject: Automatic reply: hello\nAuto-Submitted: auto-replied\n\nI am away.\n",
        // a report of another kind
        "Subject: report\nContent-Type: multipart/report; report-type=x-arf; boundary=B\n\n--B\nContent-Type: text/plain\n\nspam\n--B--\n",
    ])
    func ordinaryMailIsNoReport(message: String) throws {
        let r = try record(message)
        #expect(r["report"] == .null)
        #expect(r["defects"]?.strings.contains("guessed_report") == false)
    }

    @Test func addressesStatusAndReplyInWords() {
        let text = Array("'a.b+c@ex-ample.org' on 3/2/2009\n  #5.1.1 bad; 550-5.1.1 no\nmail@localhost and <x@y.example.>.".utf8)
        #expect(ReportReader.addresses(in: text).map(\.0) == ["a.b+c@ex-ample.org", "x@y.example"])
        #expect(ReportReader.enhancedStatus(in: text) == "5.1.1")
        #expect(ReportReader.enhancedStatus(in: Array("version 10.5.1.2 and 5.1.1000".utf8)) == nil)
        #expect(ReportReader.smtpReplyLine(in: text) == "5.1.1 bad; 550-5.1.1 no")
    }

    @Test func roughTextOfHTML() {
        let html = Array("<p>Delivery has <b>failed</b> to:</p><div>pat&#64;example.org&nbsp;&lt;x&gt;</div>".utf8)
        #expect(String(decoding: ReportReader.roughText(html: html), as: UTF8.self) == "\nDelivery has failed to:\n\npat@example.org <x>\n")
    }
}

@Suite struct DraftTests {
    @Test func takeoutDraftsLabelInAnyLanguage() throws {
        let mbox = """
            From 1@xxx Sun Mar 22 17:00:05 +0000 2026
            X-Gmail-Labels: Drafts,Opened
            Subject: one

            x

            From 2@xxx Sun Mar 22 17:00:06 +0000 2026
            X-Gmail-Labels: =?UTF-8?Q?Entw=C3=BCrfe?=
            Subject: two

            x

            From 3@xxx Sun Mar 22 17:00:07 +0000 2026
            X-Gmail-Labels: Sent,Drafts-old
            Subject: three

            x

            """
        let r = try records(ofMailbox: Array(mbox.utf8))
        #expect(r.map { $0["is_draft"] } == [.bool(true), .bool(true), .bool(false)])
    }

    @Test func thunderbirdDraftHeader() throws {
        let r = try record("From: me@example.net\nX-Mozilla-Draft-Info: internal/draft; vcard=0; receipt=0\nSubject: s\n\nx\n")
        #expect(r["is_draft"] == .bool(true))
        #expect(try record("From: me@example.net\nSubject: s\n\nx\n")["is_draft"] == .bool(false))
    }

    @Test(arguments: [(".Drafts", true), (".INBOX.Drafts", true), ("Drafts", true), ("Entwürfe", true),
                      (".Sent", false), ("Maildir", false), (".Drafts.old", false)])
    func maildirFolder(name: String, isDraft: Bool) throws {
        let dir = temporaryDirectory() + "/" + name
        mkdir(dir, 0o755)
        for sub in ["cur", "new", "tmp"] { mkdir(dir + "/" + sub, 0o755) }
        let fd = open(dir + "/cur/1700000000.1.host:2,S", O_WRONLY | O_CREAT, 0o644)
        _ = Array("Subject: s\n\nx\n".utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let converter = MessageConverter()
        var out: [JSONValue] = []
        try MailboxInput.read(fd: -1, path: dir + "/", isDirectory: true, format: nil,
                              message: { out.append(try JSONValue.parse(converter.record(for: $0).json)) }, bad: { _ in })
        #expect(out.first?["is_draft"] == .bool(isDraft))
    }

    @Test func maildirDraftFlag() {
        #expect(MaildirReader.labels(flags: "DS", isNew: false) == ["DRAFT"])
    }
}

@Suite struct DateSourceTests {
    func mbox(_ fromLineDate: String, _ headers: String) throws -> JSONValue {
        try records(ofMailbox: Array("From me@example.net \(fromLineDate)\n\(headers)Subject: s\n\nx\n".utf8))[0]
    }

    @Test func aRightDateIsKept() throws {
        let r = try mbox("Mon Mar 23 12:30:00 2026", "Date: Mon, 23 Mar 2026 20:29:00 +0800\n")
        #expect(r["date"] == .string("2026-03-23T12:29:00Z"))
        #expect(r["date_source"] == .string("date"))
        // the From_ line is local time without a zone: a Date up to a day after it stands
        let ahead = try mbox("Mon Mar 23 00:30:00 2026", "Date: Mon, 23 Mar 2026 23:29:00 +0000\n")
        #expect(ahead["date_source"] == .string("date"))
    }

    @Test(arguments: [
        ("Date: Sat, 23 Mar 3609 08:00:00 +0000\n", "impossible_date"),
        ("Date: Thu, 01 Jan 1970 00:00:00 +0000\n", "impossible_date"),
        ("Date: Wed, 25 Mar 2026 13:00:01 +0000\n", "impossible_date"),
        ("Date: sometime last tuesday\n", "invalid_date"),
        ("", "missing_date"),
    ])
    func aWrongDateGivesWayToTheFromLine(header: String, defect: String) throws {
        let r = try mbox("Tue Mar 24 13:00:00 2026", header)
        #expect(r["date"] == .string("2026-03-24T13:00:00Z"))
        #expect(r["date_source"] == .string("mbox"))
        #expect(r["defects"]?.strings.contains(defect) == true)
    }

    @Test func receivedWhenThereIsNoEnvelope() throws {
        let r = try record("""
            Received: from a by b; Tue, 24 Mar 2026 07:45:10 +0000 (UTC)
            Received: from c by a; Tue, 24 Mar 2026 07:45:08 +0000
            Date: Fri, 27 Mar 2026 07:45:00 +0000
            Subject: s

            x
            """)
        #expect(r["date"] == .string("2026-03-24T07:45:10Z"))
        #expect(r["date_source"] == .string("received"))
        #expect(r["defects"]?.strings.contains("impossible_date") == true)
    }

    @Test func nothingBetterKeepsTheHeaderAndNothingAtAllIsNull() throws {
        let old = try record("Date: Thu, 01 Jan 1970 00:00:00 +0000\nSubject: s\n\nx\n")
        #expect(old["date"] == .string("1970-01-01T00:00:00Z"))
        #expect(old["date_source"] == .string("date"))
        #expect(old["defects"]?.strings.contains("impossible_date") == true)
        let none = try record("Subject: s\n\nx\n")
        #expect(none["date"] == .null)
        #expect(none["date_source"] == .null)
    }

    @Test func formatPatchFromLineIsNoDeliveryTime() throws {
        let r = try mbox("Mon Sep 17 00:00:00 2001", "Date: Tue, 24 Mar 2026 07:45:10 +0000\n")
        #expect(r["date"] == .string("2026-03-24T07:45:10Z"))
        #expect(r["date_source"] == .string("date"))
    }
}
