import Testing
import JSONLines
@testable import MailKind

/// Classifies a raw message (headers and body as a mail client would receive them) with the
/// built-in rules, through the same parser newsletter-detect --mail uses.
func verdict(_ headers: String, body: String = "Hello,\n\nSee you tomorrow.\n", rules: MailKindRules = .builtIn) -> Verdict {
    let message = headers + "\n\n" + body
    return Classifier(rules: rules).classify(NewsletterDetect.facts(ofRawMessage: Array(message.utf8), name: "test"))
}

let person = """
    From: Alex Rivera <alex.rivera@example.com>
    To: Mei <mei@example.tw>
    Subject: Dinner on Friday?
    Date: Mon, 2 Mar 2026 09:14:58 +0800
    Message-ID: <a1@example.com>
    """

@Suite struct PersonalMail {
    @Test func aPersonWritingIsPersonalWithNoReasons() {
        let v = verdict(person)
        #expect(v.kind == .personal && v.reasons.isEmpty && !v.isNewsletter && v.unsubscribe == nil)
    }

    @Test func oneWeakSignalIsNotEnough() {
        // A friend forwarding an article whose footer says "unsubscribe".
        let v = verdict(person, body: "Look at this!\n\n> To unsubscribe from this newsletter, click here.\n")
        #expect(v.kind == .personal)
    }

    @Test func gmailsForumsCategoryAloneIsNotAList() {
        let v = verdict(person + "\nX-Gmail-Labels: Inbox,Category Forums")
        #expect(v.kind == .personal)
    }

    @Test func aPersonWritingAboutAnInvoiceOrAParcelIsPersonal() {
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "Re: Quick question about the invoice")).kind == .personal)
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "包裹寄送") + "\nX-Gmail-Labels: Inbox,Category Forums").kind == .personal)
    }

    @Test func ourOwnStampIsNoSignal() {
        // newsletter-detect --mail runs first in procmail; -q then reads its headers.
        #expect(verdict(person + "\nX-Mail-Kind: personal\nX-Newsletter: no").kind == .personal)
    }

    @Test func whatYouSentIsPersonalEvenWithBulkHeaders() {
        let v = verdict(person + "\nX-Gmail-Labels: Sent\nList-Unsubscribe: <https://example.com/u>")
        #expect(v.kind == .personal && v.reasons == ["sent"])
    }
}

@Suite struct Newsletters {
    @Test func listUnsubscribeWithOneClickPrecedenceAndFeedbackID() {
        let v = verdict("""
            From: Acme Weekly <news@mail.acme-shop.com>
            To: mei@example.tw
            Subject: This week's picks
            List-Unsubscribe: <mailto:unsub-abc@bounce.acme-shop.com?subject=unsubscribe>,
             <https://acme-shop.com/unsubscribe/one-click?u=abc>
            List-Unsubscribe-Post: List-Unsubscribe=One-Click
            Precedence: bulk
            Feedback-ID: 123:456:mailchimp:gmail
            """, body: "<p>New arrivals</p><a href=\"https://acme-shop.com/view\">View in browser</a>")
        #expect(v.kind == .newsletter && v.isNewsletter)
        for r in ["list_unsubscribe", "list_unsubscribe_post", "precedence_bulk", "feedback_id", "newsletter_sender", "newsletter_phrase"] {
            #expect(v.reasons.contains(r), "\(r) in \(v.reasons)")
        }
        #expect(v.unsubscribe == Unsubscribe(url: "https://acme-shop.com/unsubscribe/one-click?u=abc",
                                             mailto: "mailto:unsub-abc@bounce.acme-shop.com?subject=unsubscribe", oneClick: true))
    }

    @Test func oneClickNeedsThePostHeaderAndHTTPS() {
        let noPost = verdict(person + "\nList-Unsubscribe: <https://acme.example/u?x=1>")
        #expect(noPost.unsubscribe?.oneClick == false && noPost.unsubscribe?.url == "https://acme.example/u?x=1")
        let plainHTTP = verdict(person + "\nList-Unsubscribe: <http://acme.example/u>\nList-Unsubscribe-Post: List-Unsubscribe=One-Click")
        #expect(plainHTTP.unsubscribe?.oneClick == false)
        let mailOnly = verdict(person + "\nList-Unsubscribe: <mailto:leave@acme.example>")
        #expect(mailOnly.unsubscribe == Unsubscribe(url: nil, mailto: "mailto:leave@acme.example", oneClick: false))
    }

    @Test func gmailPromotionsCategory() {
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "deals@store.example") + "\nX-Gmail-Labels: Inbox,Category Promotions")
        #expect(v.kind == .newsletter && v.reasons.contains("gmail_category_promotions"))
    }

    @Test func bulkMailServiceHeaders() {
        let v = verdict(person + "\nX-SES-Outgoing: 2026.03.02-54.240.1.1\nX-Mailgun-Tag: spring")
        #expect(v.kind == .newsletter)
        #expect(v.reasons.contains("bulk_header:x-ses-outgoing") && v.reasons.contains("bulk_header:x-mailgun-tag"))
    }

    @Test func noreplySender() {
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "no-reply@digest.example"))
        #expect(v.kind == .newsletter && v.reasons == ["noreply_sender"])
    }

    @Test func verpReturnPathAndAnUnsubscribeLinkTogether() {
        let v = verdict(person + "\nReturn-Path: <bounces+1234-ab12-mei=example.tw@em.sender.example>",
                        body: "Our spring issue.\n\nUnsubscribe: https://sender.example/u/1234\n")
        #expect(v.kind == .newsletter && v.reasons == ["verp_return_path", "unsubscribe_link"])
    }

    @Test func anAnnouncementListThatTakesNoPostsIsANewsletter() {
        let v = verdict("""
            From: Project Announcements <announce@project.example>
            To: announce@lists.project.example
            Subject: Release 4.2
            List-Id: <announce.lists.project.example>
            List-Post: NO
            List-Unsubscribe: <https://lists.project.example/leave>
            """)
        #expect(v.kind == .newsletter)
    }
}

@Suite struct DiscussionLists {
    @Test func aPostThroughGoogleGroupsIsList() {
        let v = verdict(person + """

            Precedence: list
            Mailing-list: list rust-tw@googlegroups.com; contact rust-tw+owners@googlegroups.com
            List-ID: <rust-tw.googlegroups.com>
            List-Post: <https://groups.google.com/group/rust-tw/post>, <mailto:rust-tw@googlegroups.com>
            List-Unsubscribe: <mailto:googlegroups-manage+1+unsubscribe@googlegroups.com>
            """, body: "Anyone going to the meetup?\n\n-- \nTo unsubscribe from this group, send email to rust-tw+unsubscribe@googlegroups.com.\n")
        #expect(v.kind == .list && !v.isNewsletter)
        #expect(v.reasons.contains("list_post") && v.reasons.contains("precedence_list"))
        #expect(v.unsubscribe?.mailto == "mailto:googlegroups-manage+1+unsubscribe@googlegroups.com")
    }

    @Test func aColleaguesReplyWithTheListsUnsubscribeFooterIsNotANewsletter() {
        let v = verdict(person + """

            In-Reply-To: <earlier@example.com>
            List-Id: Team <team.lists.example.org>
            List-Unsubscribe: <https://lists.example.org/leave/team>
            """, body: "Agreed, let's ship it.\n\n_______________\nTeam mailing list\nUnsubscribe: https://lists.example.org/leave/team\n")
        #expect(v.kind == .list && v.reasons.contains("list_id_reply"))
    }

    @Test func anOldMajordomoListMarksPostsBulk() {
        let v = verdict(person + "\nSender: owner-freebsd-isp@FreeBSD.ORG\nPrecedence: bulk\nX-Loop: FreeBSD.org")
        #expect(v.kind == .list && v.reasons.contains("list_sender"))
    }

    @Test func aCampaignSentThroughListSoftwareIsStillANewsletter() {
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "newsletter@shop.example") + """

            List-Id: <12345.list-id.shop.example>
            List-Post: <mailto:newsletter@shop.example>
            Feedback-ID: 1:2:esp:gmail
            """)
        #expect(v.kind == .newsletter)
    }
}

@Suite struct AutomatedMail {
    @Test func rfc3834AutoReplied() {
        let v = verdict(person + "\nAuto-Submitted: auto-replied")
        #expect(v.kind == .automated && v.reasons == ["auto_submitted_auto_replied"])
    }

    @Test func outOfOfficeSubjectsInSeveralLanguages() {
        for subject in ["Automatic reply: Dinner on Friday?", "Out of Office: back on Monday", "Abwesenheitsnotiz: Urlaub", "自動回覆: 週五晚餐？"] {
            let v = verdict(person.replacingFirst("Dinner on Friday?", subject))
            #expect(v.kind == .automated, "\(subject)")
        }
    }

    @Test func aReplyAboutOutOfOfficeIsNotAnAutoReply() {
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "Re: out of office policy")).kind == .personal)
    }

    @Test func anAutoReplySubjectIsATagNotTheFirstWordsOfASentence() {
        for subject in ["Out of Office AutoReply: Dinner", "[Auto-Reply] Dinner on Friday?", "【不在通知】Re: 打ち合わせ", "自动答复: 合同草稿",
                        "Réponse automatique : Dîner", "Out of office", "自動返信：Re: 納期"] {
            let v = verdict(person.replacingFirst("Dinner on Friday?", subject))
            #expect(v.kind == .automated && v.reasons == ["auto_reply_subject"], "\(subject)")
        }
        for subject in ["Out of office plans for December", "On vacation next week?", "Out of office? 5 island escapes",
                        "Auto-reply storms on the list", "自动回复的设置方法", "不在通知の設定について", "Out of office - Dan (Dec 23 - Jan 2)"] {
            #expect(verdict(person.replacingFirst("Dinner on Friday?", subject)).kind == .personal, "\(subject)")
        }
    }

    @Test func dominoNamesThePersonFirst() {
        let english = verdict(person.replacingFirst("Dinner on Friday?", "Alex Rivera is out of the office.") + "\nAuto-Submitted: auto-generated")
        #expect(english.kind == .automated && english.reasons == ["auto_reply_subject"])
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "Peter Schulz ist außer Haus.")).kind == .automated)
        #expect(verdict(person.replacingFirst("Dinner on Friday?", "Alex is out of the office next week")).kind == .personal)
    }

    @Test func exchangesOutOfOfficeMarks() {
        let v = verdict(person + "\nX-Auto-Response-Suppress: All\nX-MS-Exchange-Inbox-Rules-Loop: alex.rivera@example.com")
        #expect(v.kind == .automated && v.reasons == ["exchange_auto_reply"])
        // Either alone says less: senders of notifications ask for no auto-replies; rules forward mail too.
        #expect(verdict(person + "\nX-Auto-Response-Suppress: All").kind == .personal)
        #expect(verdict(person + "\nX-MS-Exchange-Inbox-Rules-Loop: alex.rivera@example.com").kind == .personal)
    }

    @Test func autoReplyHeaders() {
        #expect(verdict(person + "\nX-Autoreply: yes").reasons == ["auto_reply_header:x-autoreply"])
    }

    @Test func bounces() {
        let daemon = verdict(person.replacingFirst("alex.rivera@example.com", "MAILER-DAEMON@mx.example.com"))
        #expect(daemon.kind == .automated && daemon.reasons == ["delivery_status_notification"])
        let postmaster = verdict(person.replacingFirst("alex.rivera@example.com", "postmaster@example.com")
            .replacingFirst("Dinner on Friday?", "Undeliverable: Dinner on Friday?"))
        #expect(postmaster.kind == .automated)
        let report = verdict(person + "\nMIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary=b",
                             body: "--b\nContent-Type: text/plain\n\nFailed.\n--b--\n")
        #expect(report.kind == .automated)
    }
}

@Suite struct Notifications {
    @Test func aReceiptMarkedAutoGenerated() {
        let v = verdict("""
            From: Acme Receipts <receipts@acme-shop.com>
            To: mei@example.tw
            Subject: Your receipt from Acme #482913
            Auto-Submitted: auto-generated
            """, body: "Order total: NT$1280\n")
        #expect(v.kind == .notification && v.reasons.contains("transactional_subject") && v.reasons.contains("auto_submitted_auto_generated"))
    }

    @Test func aShippingNoticeWithAnUnsubscribeHeaderIsStillANotification() {
        let v = verdict("""
            From: UPS <mcinfo@ups.com>
            To: mei@example.tw
            Subject: UPS Update: Package Scheduled for Delivery Today
            List-Unsubscribe: <mailto:unsubscribe@ups.com>
            """, body: "Tracking number: 1Z999AA10123456784\n")
        #expect(v.kind == .notification)
    }

    @Test func aTaiwaneseShippingNotice() {
        let v = verdict("""
            From: =?UTF-8?B?6buR6LKT5a6F5oCl5L6/?= <service@t-cat.com.tw>
            To: mei@example.tw
            Subject: =?UTF-8?B?44CQ6buR6LKT5a6F5oCl5L6/44CR5oKo55qE5YyF6KO55bey5Ye66LKo?=
            Auto-Submitted: auto-generated
            """)
        #expect(v.kind == .notification && v.reasons.contains("transactional_subject"))
    }

    @Test func aNotificationWithNoBulkHeaderAtAll() {
        // USPS Informed Delivery mail carries none of the bulk headers.
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "USPSInformeddelivery@email.informeddelivery.usps.com")
            .replacingFirst("Dinner on Friday?", "USPS® Expected Delivery on Thursday"))
        #expect(v.kind == .notification && v.reasons == ["notification_sender", "transactional_subject"])
    }

    @Test func aPasswordResetFromNoreply() {
        let v = verdict(person.replacingFirst("alex.rivera@example.com", "no-reply@accounts.example")
            .replacingFirst("Dinner on Friday?", "Reset your password"))
        #expect(v.kind == .notification)
    }

    @Test func shipmentsFoundByCarrierDetectMakeItANotification() throws {
        let record = try JSONRecord(#"{"from":{"name":"Shop","address":"orders@shop.example"},"subject":"Thanks!","headers":{"list-unsubscribe":["<https://shop.example/u>"]},"shipments":[{"carrier":"ups"}]}"#)
        let v = Classifier(rules: .builtIn).classify(try MessageFacts(record: record))
        #expect(v.kind == .notification && v.reasons.contains("shipments"))
    }
}

@Suite struct RulesFiles {
    @Test func aUsersFileAddsSignals() throws {
        let mail = person + "\nX-Acme-Blast: 7"
        #expect(verdict(mail).kind == .personal)
        var rules = MailKindRules.builtIn
        try rules.add(json: Array(#"{"comment": "ours", "bulk_headers": ["X-Acme-Blast"]}"#.utf8))
        let v = verdict(mail, rules: rules)
        #expect(v.kind == .newsletter && v.reasons == ["bulk_header:x-acme-blast"])
    }

    @Test func mistakesInARulesFileAreNamed() {
        var rules = MailKindRules.builtIn
        #expect(throws: MailKindRules.FileError.self) { try rules.add(json: Array(#"{"bulk_header": ["x"]}"#.utf8)) }
        #expect(throws: MailKindRules.FileError.self) { try rules.add(json: Array(#"{"bulk_headers": "x"}"#.utf8)) }
        #expect(throws: MailKindRules.FileError.self) { try rules.add(json: Array("[".utf8)) }
    }

    @Test func aRecordWithoutHeadersIsRefused() throws {
        #expect(throws: MessageFacts.MissingField.self) { try MessageFacts(record: try JSONRecord(#"{"subject":"x"}"#)) }
    }
}

extension String {
    func replacingFirst(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement, maxReplacements: 1)
    }
}

@Test func headerValuesTrimmedOfWhiteSpaceAtBothEnds() {
    #expect("  auto-replied \r\n".trimmed == "auto-replied")
    #expect(" a  b ".trimmed == "a  b")
    #expect(" \t\n".trimmed == "" && "".trimmed == "" && "x".trimmed == "x")
    #expect("\u{A0}e\u{301}\u{2003}".trimmed == "e\u{301}")
}
