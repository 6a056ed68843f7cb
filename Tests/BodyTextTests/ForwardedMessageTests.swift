import CivilTime
import JSONLines
import Testing
@testable import BodyText

/// The forwards mail programs write, in their languages: who sent the forwarded message, when
/// (as RFC 3339 in UTC), about what, and its text. (The held-out forwards, never tuned on, are
/// Tests/e2e/data/forwarded-heldout.json.)
@Suite struct ForwardedMessageTests {
    private let extractor = Extractor()

    private func forwarded(subject: String, text: String? = nil, html: String? = nil, date: String = "Mon, 9 Mar 2026 12:00:00 +0000",
                           attachments: String = "[]") throws -> ForwardedMessage? {
        func json(_ s: String?) -> String {
            guard let s else { return "null" }
            var w = JSONWriter(capacity: 64)
            w.string(s)
            return String(decoding: w.bytes, as: UTF8.self)
        }
        let line = #"{"subject":\#(json(subject)),"text":\#(json(text)),"html":\#(json(html)),"headers":{"date":[\#(json(date))]},"attachments":\#(attachments)}"#
        return extractor.forwardedMessage(in: try JSONRecord(line))
    }

    private func check(_ f: ForwardedMessage?, address: String?, name: String? = nil, subject: String?, date: String?, textStarts: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        guard let f else {
            Issue.record("no forwarded message", sourceLocation: sourceLocation)
            return
        }
        #expect(f.from?.address == address, sourceLocation: sourceLocation)
        if let name { #expect(f.from?.name == name, sourceLocation: sourceLocation) }
        #expect(f.subject == subject, sourceLocation: sourceLocation)
        #expect(f.date == date, sourceLocation: sourceLocation)
        #expect(f.text.hasPrefix(textStarts), "text: \(f.text)", sourceLocation: sourceLocation)
    }

    // MARK: Gmail

    @Test func gmailEnglish() throws {
        let f = try forwarded(subject: "Fwd: Your appointment", text: """
            FYI

            ---------- Forwarded message ---------
            From: Bright Smile Dental <appointments@brightsmile.example>
            Date: Mon, Mar 9, 2026 at 9:05 AM
            Subject: Your appointment
            To: Ann Lee <ann@example.com>, Bo <bo@example.com>


            Dear Ann, your appointment is on Thursday 12 March at 2:30 PM.
            """, date: "Mon, 9 Mar 2026 12:00:00 -0400")
        check(f, address: "appointments@brightsmile.example", name: "Bright Smile Dental", subject: "Your appointment",
              date: "2026-03-09T13:05:00Z", textStarts: "Dear Ann,")
        #expect(f?.to.map(\.address) == ["ann@example.com", "bo@example.com"] && f?.source == "inline")
    }

    @Test func gmailGermanAndFrench() throws {
        check(try forwarded(subject: "Fwd: Termin", text: """
            ---------- Weitergeleitete Nachricht ---------
            Von: Praxis Sommer <info@praxis-sommer.example>
            Date: Mo., 9. März 2026 um 08:15 Uhr
            Subject: Termin
            To: <kai@example.de>

            Guten Tag, Ihr Termin ist am 16.03.2026 um 10:00 Uhr.
            """, date: "Mon, 9 Mar 2026 12:00:00 +0100"),
              address: "info@praxis-sommer.example", name: "Praxis Sommer", subject: "Termin", date: "2026-03-09T07:15:00Z", textStarts: "Guten Tag")
        check(try forwarded(subject: "Fwd: Rendez-vous", text: """
            ---------- Message transféré ---------
            De : Institut Beauté <rdv@beaute.example>
            Date: lun. 9 mars 2026 à 17:40
            Subject: Rendez-vous
            To: <claire@example.fr>

            Bonjour Claire, à bientôt.
            """, date: "Mon, 9 Mar 2026 19:00:00 +0100"),
              address: "rdv@beaute.example", subject: "Rendez-vous", date: "2026-03-09T16:40:00Z", textStarts: "Bonjour Claire")
    }

    @Test func gmailChineseSimplifiedAndJapaneseHTML() throws {
        check(try forwarded(subject: "Fwd: 预约成功", text: """
            ---------- 转发的邮件 ---------
            发件人： 协和医院 <yuyue@xiehe.example>
            Date: 2026年3月9日周一 上午10:20
            Subject: 预约成功
            To: <li@example.cn>

            李先生您好，您的预约已成功。
            """, date: "Mon, 9 Mar 2026 12:00:00 +0800"),
              address: "yuyue@xiehe.example", name: "协和医院", subject: "预约成功", date: "2026-03-09T02:20:00Z", textStarts: "李先生您好")
        let html = """
            <div dir="ltr"><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">---------- 転送されたメッセージ ---------<br>\
            From: <strong class="gmail_sendername" dir="auto">東京クリニック</strong> <span dir="auto">&lt;<a href="mailto:yoyaku@tokyo-clinic.example">yoyaku@tokyo-clinic.example</a>&gt;</span><br>\
            Date: 2026年3月9日(月) 9:00<br>Subject: 予約確認<br>To: &lt;<a href="mailto:sato@example.jp">sato@example.jp</a>&gt;<br></div><br><br>\
            <div>佐藤様、ご予約ありがとうございます。</div></div></div>
            """
        check(try forwarded(subject: "Fwd: 予約確認", html: html, date: "Mon, 9 Mar 2026 12:00:00 +0900"),
              address: "yoyaku@tokyo-clinic.example", name: "東京クリニック", subject: "予約確認", date: "2026-03-09T00:00:00Z", textStarts: "佐藤様")
    }

    // MARK: Outlook

    @Test func outlookEnglishWithBoldFieldsAndMailto() throws {
        check(try forwarded(subject: "FW: Delivery update", text: """
            Please see below.

            *From:* UPS <pkginfo@ups.example>
            *Sent:* Monday, March 9, 2026 11:02 AM
            *To:* Dan Roe <dan@example.com>
            *Subject:* Delivery update

            Your package 1Z999AA10123456784 is out for delivery.
            """, date: "Mon, 9 Mar 2026 12:00:00 -0500"),
              address: "pkginfo@ups.example", name: "UPS", subject: "Delivery update", date: "2026-03-09T16:02:00Z", textStarts: "Your package")
        check(try forwarded(subject: "FW: Invoice", text: """
            From: Accounts [mailto:accounts@vendor.example]
            Sent: 09 March 2026 14:30
            To: Team
            Subject: Invoice

            Attached.
            """, date: "Mon, 9 Mar 2026 15:00:00 +0000"),
              address: "accounts@vendor.example", name: "Accounts", subject: "Invoice", date: "2026-03-09T14:30:00Z", textStarts: "Attached.")
    }

    @Test func outlookGermanAndSpanish() throws {
        check(try forwarded(subject: "WG: Ihre Bestellung", text: """
            ________________________________
            Von: Shop GmbH <service@shop.example>
            Gesendet: Montag, 9. März 2026 09:12
            An: Eva Roth <eva@example.de>
            Betreff: Ihre Bestellung

            Vielen Dank für Ihre Bestellung.
            """, date: "Mon, 9 Mar 2026 12:00:00 +0100"),
              address: "service@shop.example", subject: "Ihre Bestellung", date: "2026-03-09T08:12:00Z", textStarts: "Vielen Dank")
        check(try forwarded(subject: "RV: Cita", text: """
            De: Centro Médico <citas@centro.example>
            Enviado: lunes, 9 de marzo de 2026 18:05
            Para: Luis <luis@example.es>
            Asunto: Cita

            Su cita ha sido confirmada.
            """, date: "Mon, 9 Mar 2026 20:00:00 +0100"),
              address: "citas@centro.example", name: "Centro Médico", subject: "Cita", date: "2026-03-09T17:05:00Z", textStarts: "Su cita")
    }

    @Test func anOutlookReplyIsNoForward() throws {
        #expect(try forwarded(subject: "RE: Budget", text: """
            Fine by me.

            From: Kim <kim@example.com>
            Sent: Monday, March 9, 2026 11:02 AM
            To: Lee <lee@example.com>
            Subject: Budget

            Can you approve?
            """) == nil)
        // nor a reply that quotes a forward under its attribution
        #expect(try forwarded(subject: "Re: Fwd: Party", text: """
            Sounds great!

            On Mon, Mar 9, 2026 at 10:00 AM Kim <kim@example.com> wrote:
            > ---------- Forwarded message ---------
            > From: Party Co <hello@party.example>
            > Subject: Party
            >
            > Join us
            """) == nil)
    }

    // MARK: Apple Mail

    @Test func appleMailEnglishGermanFrench() throws {
        check(try forwarded(subject: "Fwd: Tickets", text: """


            Begin forwarded message:

            From: Theatre Box Office <tickets@theatre.example>
            Subject: Tickets
            Date: 9 March 2026 at 18:20:05 GMT+1
            To: Mia <mia@example.com>

            Your tickets for Saturday are attached.
            """),
              address: "tickets@theatre.example", subject: "Tickets", date: "2026-03-09T17:20:05Z", textStarts: "Your tickets")
        check(try forwarded(subject: "Fwd: Abholung", text: """
            Anfang der weitergeleiteten Nachricht:

            Von: Apotheke am Markt <info@apotheke.example>
            Betreff: Abholung
            Datum: 9. März 2026 um 16:45:00 MEZ
            An: Jan <jan@example.de>

            Ihr Medikament liegt zur Abholung bereit.
            """, date: "Mon, 9 Mar 2026 18:00:00 +0100"),
              address: "info@apotheke.example", subject: "Abholung", date: "2026-03-09T15:45:00Z", textStarts: "Ihr Medikament")
        check(try forwarded(subject: "Fwd: Colis", text: """
            Début du message réexpédié :

            De: La Poste <ne-pas-repondre@laposte.example>
            Objet: Colis
            Date: 9 mars 2026 à 08:00:00 UTC+1
            À: Paul <paul@example.fr>

            Votre colis est arrivé.
            """),
              address: "ne-pas-repondre@laposte.example", subject: "Colis", date: "2026-03-09T07:00:00Z", textStarts: "Votre colis")
    }

    // MARK: Thunderbird

    @Test func thunderbirdEnglishFrenchChinese() throws {
        check(try forwarded(subject: "Fwd: Minutes", text: """
            -------- Forwarded Message --------
            Subject: \tMinutes
            Date: \tMon, 9 Mar 2026 10:00:00 +0200
            From: \tSecretary <sec@club.example>
            To: \tmembers@club.example

            Minutes attached.
            """),
              address: "sec@club.example", name: "Secretary", subject: "Minutes", date: "2026-03-09T08:00:00Z", textStarts: "Minutes attached.")
        check(try forwarded(subject: "Fwd: Facture", text: """
            -------- Message transféré --------
            Sujet : \tFacture
            Date : \tMon, 9 Mar 2026 10:00:00 +0100
            De : \tEDF <factures@edf.example>
            Pour : \tmarie@example.fr

            Votre facture est disponible.
            """),
              address: "factures@edf.example", subject: "Facture", date: "2026-03-09T09:00:00Z", textStarts: "Votre facture")
        check(try forwarded(subject: "Fwd: 快递", text: """
            -------- 转发的消息 --------
            主题: \t您的快递已发出
            日期: \tMon, 9 Mar 2026 10:00:00 +0800
            发件人: \t顺丰速运 <sf@sf-express.example>
            收件人: \twang@example.cn

            您的快递 SF1234567890123 已发出。
            """),
              address: "sf@sf-express.example", name: "顺丰速运", subject: "您的快递已发出", date: "2026-03-09T02:00:00Z", textStarts: "您的快递")
    }

    // MARK: attached and nested

    @Test func anAttachedMessageAndAForwardOfAForward() throws {
        let attachment = #"[{"content_type":"message/rfc822","filename":null,"message":{"subject":"Order shipped","from":{"name":"Shop","address":"ship@shop.example"},"date":"2026-03-08T10:00:00Z","message_id":"a@b","to":[{"name":null,"address":"me@example.com"}],"text":null,"html":"<p>Your order <b>shipped</b>.</p>","attachments":[{"filename":"label.pdf","content_type":"application/pdf"}]}}]"#
        let f = try forwarded(subject: "Fwd: Order shipped", text: "", attachments: attachment)
        check(f, address: "ship@shop.example", subject: "Order shipped", date: "2026-03-08T10:00:00Z", textStarts: "Your order shipped.")
        #expect(f?.source == "attachment" && f?.attachments.count == 1 && f?.to.first?.address == "me@example.com")

        // the original sender, not the family member who passed it on
        check(try forwarded(subject: "Fwd: Fwd: Appointment", text: """
            ---------- Forwarded message ---------
            From: Sis <sis@example.com>
            Date: Mon, Mar 9, 2026 at 9:00 AM
            Subject: Fwd: Appointment
            To: <me@example.com>


            ---------- Forwarded message ---------
            From: Clinic <desk@clinic.example>
            Date: Sun, Mar 8, 2026 at 5:00 PM
            Subject: Appointment
            To: <sis@example.com>

            See you Friday at 10:00.
            """), address: "desk@clinic.example", subject: "Appointment", date: "2026-03-08T17:00:00Z", textStarts: "See you Friday")
    }

    @Test func hostileForwardsAreBounded() throws {
        // ten thousand forwards of forwards: followed eight down, no deeper
        let block = "---------- Forwarded message ---------\nFrom: a@example.com\nDate: Mon, Mar 9, 2026 at 9:00 AM\nSubject: s\n\n"
        let f = try forwarded(subject: "Fwd: s", text: String(repeating: block, count: 10_000) + "end")
        #expect(f?.from?.address == "a@example.com" && f!.text.hasPrefix(block) && f!.text.utf8.count > 9_000 * block.utf8.count)
        // a header line of a megabyte, an address of nothing but @, a date of digits only
        let long = String(repeating: "x", count: 1 << 20)
        let g = try forwarded(subject: "Fwd: x", text: "Begin forwarded message:\n\nFrom: \(long) <@@@>\nSubject: \(long)\nDate: 99:99 2026 1 1 1 1\n\nbody")
        #expect(g?.from?.address == nil && g?.date == nil && g?.text == "body")
    }

    @Test func datesAsWritten() {
        let d = ForwardDate(patterns: .builtIn)
        func utc(_ s: String, _ offset: Int? = 0) -> String? { d.read(s, zoneOffset: offset).map(CivilDate.rfc3339) }
        #expect(utc("Tue, Mar 10, 2026 at 12:05 AM") == "2026-03-10T00:05:00Z")
        #expect(utc("Tue, Mar 10, 2026 at 12:05 PM") == "2026-03-10T12:05:00Z")
        #expect(utc("3/10/2026 3:05 PM") == "2026-03-10T15:05:00Z")
        #expect(utc("10/03/2026 15:05") == nil)  // day or month first: nothing says
        #expect(utc("13/03/2026 15:05") == "2026-03-13T15:05:00Z")
        #expect(utc("09.03.2026 08:00") == "2026-03-09T08:00:00Z")
        #expect(utc("2026-03-09 08:00") == "2026-03-09T08:00:00Z")
        #expect(utc("mar, 10 mar 2026 a las 9:12") == "2026-03-10T09:12:00Z")
        #expect(utc("Mon, 9 Mar 2026 10:00:00 -0700") == "2026-03-09T17:00:00Z")
        #expect(utc("Monday, March 9, 2026 10:00 AM", nil) == nil)  // no zone anywhere
        #expect(utc("2026年3月9日 下午12:30") == "2026-03-09T12:30:00Z")
        #expect(utc("2026년 3월 9일 월요일 오후 3:20") == "2026-03-09T15:20:00Z")
        #expect(utc("March 2026") == nil && utc("31 February 2026 10:00") == nil)
    }

    @Test func peopleAsWritten() {
        let p = ForwardReader.people(#""Roe, Dan" <dan@example.com>; Amy <amy@example.com>, bob@example.com"#, single: false)
        #expect(p.map(\.address) == ["dan@example.com", "amy@example.com", "bob@example.com"])
        #expect(p.map(\.name) == ["Roe, Dan", "Amy", nil])
        #expect(ForwardReader.people("Dr. Who", single: true).first == .init(name: "Dr. Who", address: nil))
        #expect(ForwardReader.people("Clinic <mailto:desk@clinic.example>", single: true).first == .init(name: "Clinic", address: "desk@clinic.example"))
    }
}

