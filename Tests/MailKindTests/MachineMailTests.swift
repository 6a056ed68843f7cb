import Testing
@testable import MailKind

/// The kinds of machine mail (issue 47): `automated_kind`, and `acted_by`/`service_action` for a
/// service acting for a person. Whole messages are in Tests/e2e/data/kinds47.
@Suite struct MachineMailKinds {
    @Test func aBounceFromMailDaemonWithoutAReportTypeIsABounce() {
        // mime-parse reads the report from the words of a delivery system's bounce
        let v = verdict("""
            From: Mail Delivery Subsystem <mail-daemon@smtp.example.it>
            To: mei@example.tw
            Subject: Undelivered Mail Returned to Sender
            """, body: "Your message could not be delivered to gio@example.org:\n550 5.1.1 User unknown\n")
        #expect(v.kind == .automated && v.automatedKind == .bounce)
    }

    @Test func aReportsKindWinsOverTheAutoReplyHeaderItCarries() {
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "MAILER-DAEMON@mx.example.com") + "\nAuto-Submitted: auto-replied")
        #expect(v.automatedKind == .bounce && v.reasons == ["auto_submitted_auto_replied", "delivery_status_notification"])
        #expect(verdict(person + "\nAuto-Submitted: auto-replied").automatedKind == .autoReply)
    }

    @Test func anExchangeReadReceiptIsAutomated() {
        let v = verdict(person.replacingFirst("Dinner on Friday?", "Read: Dinner on Friday?"),
                        body: "Your message\n\n  To: Alex Rivera\n  Subject: Dinner on Friday?\n\nwas read on Monday, March 2, 2026 10:00:00 AM.\n")
        #expect(v.kind == .automated && v.automatedKind == .readReceipt && v.reasons.contains("read_receipt"))
    }

    @Test func aTLSReportByItsHeaderAndADMARCReportByItsSubjectAndAttachment() {
        let tls = verdict("""
            From: noreply-smtp-tls-reporting@google.com
            To: tls@example.tw
            Subject: Report Domain: example.tw Submitter: google.com Report-ID: <1@google.com>
            TLS-Report-Domain: example.tw
            TLS-Report-Submitter: google.com
            """)
        #expect(tls.kind == .automated && tls.automatedKind == .tlsReport && tls.reasons == ["tls_report_header:tls-report-domain"])
        let dmarc = verdict("""
            From: noreply-dmarc-support@google.com
            To: dmarc@example.tw
            Subject: Report domain: example.tw Submitter: google.com Report-ID: 123
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary=b
            """, body: "--b\nContent-Type: application/gzip; name=\"google.com!example.tw!1!2.xml.gz\"\nContent-Transfer-Encoding: base64\n\nH4sIAAAAAAAAAwMAAAAAAAAAAAA=\n--b--\n")
        #expect(dmarc.kind == .automated && dmarc.automatedKind == .dmarcReport)
        // the same subject with no report attached, and a reply about one, are no report
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "Report domain: example.tw Submitter: google.com")).automatedKind == nil)
    }

    @Test func aDraftIsPersonalWhateverItSays() {
        let v = verdict(person.replacingFirst("Dinner on Friday?", "Automatic reply: Dinner") + "\nX-Mozilla-Draft-Info: internal/draft; vcard=0")
        #expect(v.kind == .personal && v.reasons == ["draft"] && v.automatedKind == nil)
    }
}

@Suite struct ServiceActingForAPerson {
    @Test func aDriveShareNamesThePersonFromTheSendersNameAndReplyTo() {
        let v = verdict("""
            From: "Alex Rivera (via Google Drive)" <drive-shares-dm-noreply@google.com>
            Reply-To: Alex Rivera <alex.rivera@example.com>
            To: mei@example.tw
            Subject: Document shared with you: "Budget"
            """, body: "Alex Rivera shared a document\n")
        #expect(v.kind == .notification && v.serviceAction == .share)
        #expect(v.actedBy == ActedBy(name: "Alex Rivera", address: "alex.rivera@example.com"))
        #expect(v.reasons.starts(with: ["service_for_person", "service_action:share"]))
    }

    @Test func theTextNamesThePersonWhenTheSenderIsTheService() {
        let v = verdict("""
            From: Dropbox <no-reply@dropbox.com>
            To: mei@example.tw
            Subject: Sam Okafor shared "Photos" with you
            """, body: "Hi Mei,\n\nSam Okafor (sam@example.net) invited you to view the folder \"Photos\".\n")
        #expect(v.actedBy == ActedBy(name: "Sam Okafor", address: "sam@example.net") && v.serviceAction == .share)
        let request = verdict("""
            From: SharePoint Online <no-reply@sharepointonline.com>
            To: mei@example.tw
            Subject: Access request
            """, body: "Tom Becker is requesting access to 'Plan.xlsx'.\n")
        #expect(request.actedBy == ActedBy(name: "Tom Becker", address: nil) && request.serviceAction == .accessRequest)
    }

    @Test func aMentionIsNotAComment() {
        let v = verdict("""
            From: "Priya Nair (Google Docs)" <comments-noreply@docs.google.com>
            Reply-To: d+abc@docs.google.com
            To: mei@example.tw
            Subject: Trip plan
            """, body: "Priya Nair mentioned you in a comment in the following document\n")
        #expect(v.actedBy == ActedBy(name: "Priya Nair", address: nil) && v.serviceAction == .mention)
    }

    @Test func aCalendarAnswerFromThePersonsOwnCalendarProgram() {
        let v = verdict(person.replacingFirst("Dinner on Friday?", "Accepted: Dinner") + "\nMIME-Version: 1.0\nContent-Type: text/calendar; method=REPLY",
                        body: "BEGIN:VCALENDAR\nMETHOD:REPLY\nBEGIN:VEVENT\nUID:1\nDTSTART:20260303T180000Z\nEND:VEVENT\nEND:VCALENDAR\n")
        #expect(v.kind == .notification && v.serviceAction == .calendarReply)
        #expect(v.actedBy == ActedBy(name: "Alex Rivera", address: "alex.rivera@example.com"))
    }

    @Test func aPersonWritingTheSameWordsIsPersonal() {
        for subject in ["I shared a file with you", "Accepted: the offer!", "Alex Rivera shared \"Budget\" with you"] {
            let v = verdict(person.replacingFirst("Dinner on Friday?", subject))
            #expect(v.kind == .personal && v.actedBy == nil && v.serviceAction == nil, "\(subject)")
        }
    }

    @Test func aThingSharedByAShopNamesNoPerson() {
        let v = verdict("""
            From: Acme Billing <noreply@acme.example>
            To: mei@example.tw
            Subject: Invoice shared with you
            """)
        #expect(v.serviceAction == nil && v.actedBy == nil && v.kind == .notification)
    }

    @Test func aUsersRulesAddAServiceAndItsWords() throws {
        let mail = """
            From: Kaito Mori <notify@files.example.jp>
            To: mei@example.tw
            Subject: Kaito Moriさんがファイルを送りました
            """
        #expect(verdict(mail).serviceAction == nil)
        var rules = MailKindRules.builtIn
        try rules.add(json: Array(#"{"share_phrases": ["さんがファイルを送りました"], "service_domains": ["files.example.jp"]}"#.utf8))
        let v = verdict(mail, rules: rules)
        #expect(v.serviceAction == .share && v.actedBy == ActedBy(name: "Kaito Mori", address: nil))
    }
}
