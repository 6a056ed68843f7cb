import Testing
import CivilTime
@testable import Events

/// Appointments moved or cancelled in words: what a mail's appointments come to (TextChanges),
/// and what the calendar makes of them (EventStore's text changes).
struct TextChangesTests {
    let words = AppointmentWords.builtIn
    let sent = CivilDate.days(dateText: "2026-03-10")!

    func read(_ text: String, subject: String? = nil) -> [(String, TextChanges.Change)] {
        let found = TextAppointments(words: words).find(in: text, sent: sent)
        return TextChanges(words: words).read(found, in: text, subject: subject).map { ($0.found.startLocal, $0.change) }
    }

    @Test func aMoveIsTheNewTimeReplacingTheOld() {
        let cases: [(String, String, String?)] = [
            ("Previous appointment: Tuesday 17 March at 10:40 - cancelled.\nNew appointment: Thursday 19 March at 15:20",
             "2026-03-19T15:20:00", "2026-03-17T10:40:00"),
            // the new time written first, its label says so
            ("Ihr Termin wurde verschoben auf Donnerstag, 26. März um 11:00 Uhr.\nDer bisherige Termin am Dienstag, 24. März um 9:30 Uhr entfällt.",
             "2026-03-26T11:00:00", "2026-03-24T09:30:00"),
            ("您的預約已改至3月27日（五）上午10:00。\n原預約時間3月20日（五）上午9:30已取消。", "2026-03-27T10:00:00", "2026-03-20T09:30:00"),
            ("ご予約を変更しました。\n変更前：2026年3月23日（月）午前10時30分\n変更後：2026年3月30日（月）午後2時", "2026-03-30T14:00:00", "2026-03-23T10:30:00"),
            // no labels: old first
            ("Your appointment has been rescheduled from Monday, March 23 at 9:00 AM to Wednesday, March 25 at 2:30 PM.",
             "2026-03-25T14:30:00", "2026-03-23T09:00:00"),
            // no old time stated
            ("Your physiotherapy session has been moved to Monday, March 23 at 5:15 pm.", "2026-03-23T17:15:00", nil),
            // the old day without a clock: no appointment read, and its word is not the new one's
            ("Previous appointment: Tuesday 17 March - cancelled.\nNew appointment: Thursday 19 March at 15:20", "2026-03-19T15:20:00", nil),
        ]
        for (text, new, old) in cases {
            let got = read(text)
            #expect(got.count == 1 && got[0].0 == new && got[0].1 == .moved(replaces: old), "\(text): \(got)")
        }
    }

    @Test func aCancellationCancelsWhatItNames() {
        for text in ["Your appointment on Wednesday 18 March at 11:10 has been cancelled.",
                     "Ihr Termin am Montag, 16.03.2026 um 14:00 Uhr wurde abgesagt.",
                     "您预约的3月26日（周四）上午8:30内科门诊已取消。",
                     "因醫師請假，3月24日（二）下午2:30 骨科門診停診。",
                     "3月25日（水）午後4時のご予約をキャンセルいたしました。"] {
            let got = read(text)
            #expect(got.count == 1 && got[0].1 == .cancelled, "\(text): \(got)")
        }
        // said by the subject alone
        #expect(read("Your appointment: Friday, March 27 at 1:45 PM.", subject: "Appointment cancelled").map { $0.1 } == [.cancelled])
    }

    @Test func aClosureIsADayOrASessionCancelled() {
        let reader = TextAppointments(words: words)
        let read = { (text: String) -> [String] in
            TextChanges(words: words).closures(in: text, sent: sent, reader: reader).map { CivilDate.dateText(days: $0.day) + " \($0.half ?? -1)" }
        }
        #expect(read("本診所3月31日（二）上午門診停診，已掛號的病患請改日就診。") == ["2026-03-31 0"])
        #expect(read("3月31日（二）下午门诊停诊。") == ["2026-03-31 1"])
        #expect(read("Die Sprechstunde am Dienstag, 31.03.2026 entfällt.") == ["2026-03-31 -1"])
        // a day with no cancelled word, or one without a booking word, is none
        #expect(read("3月31日（二）上午門診照常。").isEmpty)
        #expect(read("3月31日（二）上午停電。").isEmpty)
    }

    @Test func howToCancelIsNoCancellation() {
        for text in ["Your appointment is confirmed for Tuesday 24 March at 9:00.\nIf you need to cancel or reschedule your appointment, please call us.",
                     "Ihr Termin am Freitag, 27. März um 10:00 Uhr ist bestätigt.\nFalls Sie den Termin absagen oder verschieben müssen, rufen Sie uns an.",
                     "您的預約已確認：3月20日（五）上午9:30。如需取消或更改預約，請來電。",
                     // a label with no second time: a footer, or a second booking
                     "To book a new appointment, visit our website.\nYour appointment is confirmed for Tuesday 24 March at 9:00.",
                     "Your new appointment is confirmed for Tuesday 24 March at 9:00.",
                     "如需改期請來電。\n您的預約已確認：3月20日（五）上午9:30",
                     "ご予約が確定しました。日程変更をご希望の場合はご連絡ください。\n日時：3月23日（月）午前10時30分"] {
            #expect(read(text).map { $0.1 } == [.none], "\(text)")
        }
    }

    // MARK: the calendar

    func text(_ local: String, from sender: String, cancel: Bool = false, replaces: String? = nil, moved: Bool = false) -> Event {
        var e = Event(source: "text", kind: "appointment", evidence: ["booking_word"])
        (e.startLocal, e.endLocal) = (local, local)
        e.organizer = Event.Person(address: sender)
        if cancel { (e.method, e.status) = ("CANCEL", "cancelled") }
        if let replaces { e.replaces = Event.Replaced(startLocal: replaces) }
        if moved || replaces != nil { e.evidence.append("change_word") }
        return e
    }

    func calendar(_ mail: [(String, String, Event)]) -> [(String?, String?, [String])] {
        let m = mail.map { EventMail(messageID: $0.0, date: $0.1, conversationID: nil, sender: $0.2.organizer?.address, events: [$0.2]) }
        return EventStore(applying: m).events.map { ($0.event.startLocal, $0.event.status, $0.messageIDs) }
    }

    @Test func theCalendarMovesAndCancels() {
        let a = "clinic@example.org", b = "salon@example.org"
        // moved from the stated time: one event, at the new time, with both mails
        var got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-17T10:40:00", from: a)),
                            ("2", "2026-03-10T09:00:00Z", text("2026-03-19T15:20:00", from: a, replaces: "2026-03-17T10:40:00"))])
        #expect(got.count == 1 && got[0].0 == "2026-03-19T15:20:00" && got[0].2 == ["1", "2"])
        // the same, applied in date order whatever order the mail came in
        got = calendar([("2", "2026-03-10T09:00:00Z", text("2026-03-19T15:20:00", from: a, replaces: "2026-03-17T10:40:00")),
                        ("1", "2026-03-05T09:00:00Z", text("2026-03-17T10:40:00", from: a))])
        #expect(got.count == 1 && got[0].0 == "2026-03-19T15:20:00")
        // moved with no old time: the sender's latest appointment still to come
        got = calendar([("0", "2026-03-01T09:00:00Z", text("2026-03-03T08:00:00", from: a)),
                        ("1", "2026-03-05T09:00:00Z", text("2026-03-20T16:00:00", from: a)),
                        ("2", "2026-03-12T09:00:00Z", text("2026-03-23T17:15:00", from: a, moved: true))])
        #expect(got.map { $0.0 } == ["2026-03-03T08:00:00", "2026-03-23T17:15:00"])
        // an old time written otherwise than the booking: the sender's one appointment that day
        got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-20T16:00:00", from: a)),
                        ("2", "2026-03-12T09:00:00Z", text("2026-03-23T17:15:00", from: a, replaces: "2026-03-20T16:30:00"))])
        #expect(got.map { $0.0 } == ["2026-03-23T17:15:00"])
        // a stated old time the calendar does not have: a booking of the new time, nothing moved
        got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-20T16:00:00", from: a)),
                        ("2", "2026-03-12T09:00:00Z", text("2026-03-23T17:15:00", from: a, replaces: "2026-03-21T10:00:00"))])
        #expect(got.map { $0.0 } == ["2026-03-20T16:00:00", "2026-03-23T17:15:00"])
        // cancelled: the sender's own, not another's of the same time
        got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-26T16:00:00", from: a)),
                        ("2", "2026-03-09T09:00:00Z", text("2026-03-26T16:00:00", from: b, cancel: true)),
                        ("3", "2026-03-10T09:00:00Z", text("2026-03-18T11:10:00", from: a)),
                        ("4", "2026-03-12T09:00:00Z", text("2026-03-18T11:10:00", from: a, cancel: true))])
        #expect(got.map { $0.1 } == [nil, "cancelled", "cancelled"])
        #expect(got[2].2 == ["3", "4"])
        // a morning closed: the sender's appointments in it, not the afternoon's
        var closed = text("2026-03-31T00:00:00", from: a, cancel: true)
        closed.endLocal = "2026-03-31T12:00:00"
        got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-31T10:00:00", from: a)),
                        ("2", "2026-03-05T09:10:00Z", text("2026-03-31T14:00:00", from: a)),
                        ("3", "2026-03-13T09:00:00Z", closed)])
        #expect(got.map { $0.1 } == ["cancelled", nil])
        #expect(got[0].2 == ["1", "3"])
        // a move is one group in the store: the sender's text appointments
        let group = { (e: Event) in StoredEvents.group(of: e, messageID: "x", sender: a) }
        #expect(group(text("2026-03-17T10:40:00", from: a)) == group(text("2026-03-19T15:20:00", from: a, replaces: "2026-03-17T10:40:00")))
    }

    /// A surgery's change or closure is about its appointments, not about the prescription
    /// reminder the same sender's notice made (kind prescription, an all-day text event).
    @Test func aPrescriptionIsNoAppointmentAChangeNames() {
        let a = "surgery@example.org"
        var prescription = Event(source: "text", kind: "prescription", evidence: ["prescription_word"])
        (prescription.startLocal, prescription.endLocal, prescription.allDay) = ("2026-03-31", "2026-04-01", true)
        prescription.organizer = Event.Person(address: a)
        var closedDay = text("2026-03-31", from: a, cancel: true)
        closedDay.endLocal = "2026-04-01"
        var got = calendar([("1", "2026-03-05T09:00:00Z", prescription),
                            ("2", "2026-03-06T09:00:00Z", text("2026-03-31T10:00:00", from: a)),
                            ("3", "2026-03-13T09:00:00Z", closedDay)])
        #expect(got.map { $0.0 } == ["2026-03-31", "2026-03-31T10:00:00"])
        #expect(got.map { $0.1 } == [nil, "cancelled"])
        // moved with no old time: the latest appointment still to come, not a later reminder
        got = calendar([("1", "2026-03-05T09:00:00Z", text("2026-03-20T16:00:00", from: a)),
                        ("2", "2026-03-06T09:00:00Z", prescription),
                        ("3", "2026-03-12T09:00:00Z", text("2026-03-23T17:15:00", from: a, moved: true))])
        #expect(got.map { $0.0 } == ["2026-03-23T17:15:00", "2026-03-31"])
    }
}
