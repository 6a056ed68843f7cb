import Testing
import JSONLines
@testable import MailKind

/// Care mail (issue 46): a patient's appointment or prescription is a notification whatever
/// bulk headers its booking system adds; a clinic's own mailing stays a newsletter.
@Suite struct CareMail {
    let bookingSystem = """
        From: Elmfield Surgery <no-reply@notify.elmfield.example.uk>
        To: pat@example.co.uk
        Date: Thu, 5 Mar 2026 09:00:00 +0000
        Message-ID: <c1@notify.elmfield.example.uk>
        Feedback-ID: 1:reminders:elmfield
        List-Unsubscribe: <https://notify.elmfield.example.uk/u/1>
        Precedence: bulk
        """

    func withSubject(_ subject: String) -> String { bookingSystem + "\nSubject: " + subject }

    @Test func anAppointmentReminderWithBulkHeadersIsANotification() {
        let v = verdict(withSubject("Appointment reminder"), body: "You have an appointment on Tuesday 17 March at 10:40.\n")
        #expect(v.kind == .notification && v.care == .appointment && v.reasons.last == "care_mail")
        #expect(v.reasons.contains("list_unsubscribe") && v.reasons.contains("precedence_bulk"))
    }

    @Test func careWordsInEachLanguage() {
        let cases: [(String, Care)] = [
            ("Terminbestätigung Praxis Dr. Brandt", .appointment), ("【看診提醒】安心診所", .appointment),
            ("预约成功通知", .appointment), ("【ご予約確認】みなとクリニック", .appointment),
            ("Your prescription is ready", .prescription), ("Ihr Rezept liegt zur Abholung bereit", .prescription),
            ("慢性處方箋領藥提醒", .prescription), ("处方药已备好", .prescription), ("処方箋のお薬の準備ができました", .prescription),
        ]
        for (subject, care) in cases {
            let v = verdict(withSubject(subject), body: "Hello.\n")
            #expect(v.kind == .notification && v.care == care, "\(subject)")
        }
    }

    @Test func careWordsInTheTextCountWithoutAMailingsSigns() {
        let v = verdict(withSubject("Your booking has been changed"), body: "Your physiotherapy appointment has been moved.\n")
        #expect(v.care == .appointment)
        // the same words from a newsletter sender, or above a newsletter's footer, are its mailing's
        let news = verdict(withSubject("Spring 2026").replacingFirst("no-reply@", "news@"), body: "Missed your appointment? Book online.\n")
        #expect(news.kind == .newsletter && news.care == nil)
        let footer = verdict(withSubject("Spring 2026"), body: "Book your appointment online.\nView this email in your browser.\n")
        #expect(footer.kind == .newsletter && footer.care == nil)
    }

    @Test func aClinicsNewsletterStaysOne() {
        for subject in ["Elmfield Surgery Newsletter: flu clinics and your appointment", "安心診所衛教電子報：預約成功的方法",
                        "みなとクリニックだより：ご予約確認の方法", "Praxis-Rundbrief: Ihr Termin online"] {
            let v = verdict(withSubject(subject), body: "Your appointment can now be booked online.\n")
            #expect(v.kind == .newsletter && v.care == nil, "\(subject)")
        }
    }

    /// A care phrase that ends in a word ("appointment with") is not found inside a longer one
    /// ("without", "online", "attendance", "format"); the same words before a name still are.
    @Test func aCarePhraseIsNotFoundInsideALongerWord() {
        for subject in ["How to see a GP appointment without the queue", "Appointment online booking is here",
                        "Appointment attendance figures for 2025", "A new appointment format from April",
                        "Termin ambulant oder stationär? Unser Ratgeber"] {
            let v = verdict(withSubject(subject), body: "Hello.\n")
            #expect(v.kind == .newsletter && v.care == nil, "\(subject)")
        }
        for subject in ["Your appointment with Dr Shah", "Appointment on 12 March", "Appointment at Elmfield Surgery",
                        "Appointment for Sam Taylor", "Termin am 12.03. in der Praxis"] {
            let v = verdict(withSubject(subject), body: "Hello.\n")
            #expect(v.kind == .notification && v.care == .appointment, "\(subject)")
        }
    }

    @Test func parcelsAndRecipesAreNotCare() {
        let parcel = verdict(withSubject("Your parcel is ready to collect"), body: "Collect it from the Post Office by 14 March.\n")
        #expect(parcel.care == nil)
        let recipe = verdict(withSubject("Rezept der Woche: Spargel"), body: "Unser Rezept der Woche.\n")
        #expect(recipe.care == nil)
    }

    @Test func aPersonWritingAboutAnAppointmentStaysPersonal() {
        let reply = verdict(person.replacingFirst("Dinner on Friday?", "Re: Appointment reminder"), body: "Thanks, see you then.\n")
        #expect(reply.kind == .personal && reply.care == nil)
        let sister = verdict(person.replacingFirst("Dinner on Friday?", "Mum"), body: "Your appointment with Dr Okafor is on Tuesday.\n")
        #expect(sister.kind == .personal && sister.care == nil)
    }

    @Test func anAppointmentOrPrescriptionReadByEventExtractCounts() throws {
        func facts(events: String, subject: String, local: String = "no-reply") throws -> MessageFacts {
            try MessageFacts(record: JSONRecord(#"{"headers":{"precedence":["bulk"]},"from":{"address":"\#(local)@clinic.example"},"subject":"\#(subject)","text":"Hello","events":\#(events)}"#))
        }
        let classifier = Classifier(rules: .builtIn)
        let prescription = classifier.classify(try facts(events: #"[{"kind":"prescription"}]"#, subject: "Notice"))
        #expect(prescription.kind == .notification && prescription.care == .prescription)
        let appointment = classifier.classify(try facts(events: #"[{"kind":"appointment"}]"#, subject: "Notice"))
        #expect(appointment.care == .appointment)
        // an appointment read from a mailing's text (a clinic's hours) is not care mail
        let mailing = classifier.classify(try facts(events: #"[{"kind":"appointment"}]"#, subject: "Notice", local: "news"))
        #expect(mailing.kind == .newsletter && mailing.care == nil)
        let none = classifier.classify(try facts(events: "[]", subject: "Notice"))
        #expect(none.care == nil)
    }
}
