import Glibc
import Testing
import ICalendar

/// Thunderbird's invitation mails and libical's iTIP cases live outside the repository, in
/// ../shared beside the checkout: an optional corpus. Without it the tests that read them are
/// skipped, saying so; with MAILPIPE_REQUIRE_SHARED=1 they run, and fail when the files cannot
/// be read.
private let icalVectors = "../shared/vectors/ical/"
private let readICalVectors = access(packageRoot + "/" + icalVectors, F_OK) == 0
    || getenv("MAILPIPE_REQUIRE_SHARED").map { String(cString: $0) == "1" } == true
private let icalVectorsMissing: Comment = "optional external corpus missing: ../shared/vectors/ical (a folder named shared beside the checkout; see README)"

/// 2026-03-01T12:00:00Z
private let now = 1_772_366_400

@Suite struct ITIPReplies {
    // MARK: the real invitations

    /// Every invitation of Thunderbird's tests, answered by the invitee: one VEVENT per VEVENT,
    /// each with the invitation's UID, SEQUENCE, RECURRENCE-ID, start and end, the attendee's
    /// own line alone.
    @Test(.enabled(if: readICalVectors, icalVectorsMissing), arguments: [
        ("single-event.eml", "receiver@example.com"), ("update-minor.eml", "receiver@example.com"),
        ("update-major.eml", "receiver@example.com"), ("repeat-event.eml", "receiver@example.com"),
        ("repeat-update-minor.eml", "receiver@example.com"), ("repeat-update-major.eml", "receiver@example.com"),
        ("exception-minor.eml", "receiver@example.com"), ("exception-major.eml", "receiver@example.com"),
        ("event-with-file-attachment.eml", "receiver@example.com"), ("meet-meeting-invite.eml", "homer@example.com"),
        ("outlook-test-invite.eml", "homer@example.org"), ("teams-meeting-invite.eml", "homer@example.com"),
    ])
    func thunderbirdInvitations(file: String, me: String) throws {
        let invitation = try #require(calendarPart(ofMail: try read(icalVectors + "thunderbird-invitations/" + file)), "\(file)")
        for answer in [ParticipationAnswer.accepted, .declined, .tentative] {
            let reply = try ITIPReply.make(invitation: invitation, attendee: me, answer: answer, comment: nil, now: now)
            checkReply(reply, to: invitation, me: me, answer: answer)
        }
    }

    @Test(.enabled(if: readICalVectors, icalVectorsMissing), arguments: [
        ("cancel-single-event.eml", "CANCEL"), ("cancel-repeat-event.eml", "CANCEL"), ("message-non-invite.eml", "PUBLISH"),
    ])
    func thunderbirdNonInvitations(file: String, method: String) throws {
        let calendar = try #require(calendarPart(ofMail: try read(icalVectors + "thunderbird-invitations/" + file)), "\(file)")
        let error = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: calendar, attendee: "receiver@example.com", answer: .accepted, comment: nil, now: now)
        }
        #expect(error.description == "not an invitation: METHOD:\(method)")
    }

    /// Outlook's invitations name their zone "FLE Standard Time" and carry its VTIMEZONE: the
    /// reply carries it too, so that its DTSTART means the same instant.
    @Test(.enabled(if: readICalVectors, icalVectorsMissing)) func outlookZoneIsKept() throws {
        let invitation = try #require(calendarPart(ofMail: try read(icalVectors + "thunderbird-invitations/outlook-test-invite.eml")))
        let reply = try ITIPReply.make(invitation: invitation, attendee: "Homer@Example.org", answer: .declined, comment: nil, now: now)
        #expect(reply.calendar.contains("BEGIN:VTIMEZONE\r\nTZID:FLE Standard Time\r\n"))
        let start = try #require(ICalendarReader.read(reply.calendar).first?.events.first?.start)
        #expect(start.kind == .zoned)
        #expect(start.utc == ICalendarReader.read(invitation).first?.events.first?.start?.utc)
        #expect(reply.summary == "Testaus")
        #expect(reply.organizer == "marge@example.org" && reply.organizerName == "Marge")
    }

    /// libical's iTIP cases: each REQUEST answered by each attendee asked to answer; every
    /// other method refused.
    @Test(.enabled(if: readICalVectors, icalVectorsMissing)) func libicalIncoming() throws {
        let text = String(decoding: try read(icalVectors + "libical/test-data/incoming.ics"), as: UTF8.self)
        let calendars = text.split(separator: "BEGIN:VCALENDAR").map { "BEGIN:VCALENDAR" + $0 }
        var answered = 0, refused = 0
        for calendar in calendars {
            let method = try #require(ICalendarReader.read(calendar).first?.method)
            let invitees = ICalendarReader.read(calendar).first?.events.flatMap(\.attendees).filter { $0.rsvp == true }.map(\.address) ?? []
            if method == "REQUEST" {
                #expect(!invitees.isEmpty)
                for me in invitees {
                    let reply = try ITIPReply.make(invitation: calendar, attendee: me, answer: .accepted, comment: "ok", now: now)
                    checkReply(reply, to: calendar, me: me, answer: .accepted)
                    answered += 1
                }
            } else {
                let error = try #require(throws: ITIPError.self, "\(method)") {
                    try ITIPReply.make(invitation: calendar, attendee: invitees.first ?? "B@example.com", answer: .accepted, comment: nil, now: now)
                }
                #expect(error.description == "not an invitation: METHOD:\(method)")
                refused += 1
            }
        }
        #expect(answered == 14 && refused == 10, "\(answered) answered, \(refused) refused")
    }

    /// Every calendar of the corpus (broken ones included), answered by its first attendee: an
    /// error, or a reply that reads back as one. Not libical's fuzz reproducers: libical takes
    /// seconds to parse each (a 284 KB line of parameters), and event-extract's end-to-end
    /// tests already run them through the same parser.
    @Test(.enabled(if: readICalVectors, icalVectorsMissing)) func everyCorpusCalendarAnswersOrRefuses() throws {
        var files: [String] = []
        for folder in ["libical/test-data", "python-icalendar/calendars", "python-icalendar/events", "python-icalendar/timezones", "recurring-ical-events", "icaljs-parser"] {
            files += entries(icalVectors + folder).filter { !$0.hasPrefix("fuzz") }.map { folder + "/" + $0 }
        }
        #expect(files.count > 200)
        var replies = 0
        for file in files {
            let text = String(decoding: try read(icalVectors + file), as: UTF8.self)
            let me = ICalendarReader.read(text).first?.events.first?.attendees.first?.address ?? "me@example.com"
            guard let reply = try? ITIPReply.make(invitation: text, attendee: me, answer: .declined, comment: nil, now: now) else { continue }
            let back = ICalendarReader.read(reply.calendar)
            #expect(back.count == 1 && back.first?.method == "REPLY" && back.first?.events.isEmpty == false, "\(file)")
            #expect(back.first?.events.allSatisfy { $0.attendees.count == 1 && $0.attendees.first?.status == "DECLINED" && $0.uid == reply.uid } == true, "\(file)")
            replies += 1
        }
        #expect(replies == 9, "\(replies) replies")
    }

    // MARK: invitations written here

    @Test func recurringEventWithAnOverride() throws {
        let reply = try ITIPReply.make(invitation: weekly, attendee: "wei.chen@example.tw", answer: .accepted, comment: nil, now: now)
        checkReply(reply, to: weekly, me: "wei.chen@example.tw", answer: .accepted)
        let events = try #require(ICalendarReader.read(reply.calendar).first?.events)
        try #require(events.count == 2)
        #expect(events[0].recurrenceID == nil && events[0].rules == ["FREQ=WEEKLY;COUNT=8"])
        #expect(events[0].sequence == 0, "SEQUENCE:0 written where the invitation has none")
        #expect(events[1].recurrenceID?.localText == "2026-03-17T10:00:00" && events[1].recurrenceID?.tzid == "Europe/Berlin")
        #expect(events[1].sequence == 3)
        #expect(events[1].start?.localText == "2026-03-17T14:00:00")
        #expect(reply.summary == "Design review", "the series' summary, not the moved instance's")
        // the zone the events use comes along; the one they do not use stays behind
        #expect(reply.calendar.contains("TZID:Europe/Berlin\r\n"))
        #expect(!reply.calendar.contains("Asia/Tokyo"))
        // no alarm, no other attendee, no RSVP, no DESCRIPTION
        for absent in ["VALARM", "other@example.com", "RSVP", "DESCRIPTION", "juergen@example.de;"] {
            #expect(!reply.calendar.contains(absent), "\(absent)")
        }
        #expect(reply.calendar.hasPrefix("BEGIN:VCALENDAR\r\nPRODID:-//mailpipe//mail-compose//EN\r\nVERSION:2.0\r\n"))
        #expect(reply.calendar.contains("\r\nMETHOD:REPLY\r\n"))
        #expect(reply.calendar.contains("\r\nDTSTAMP:20260301T120000Z\r\n"))
    }

    /// An IANA zone named without its VTIMEZONE (as Google's invitations do) gets libical's, so
    /// the reply carries one for each TZID as RFC 5546 wants; a name libical does not know, none.
    @Test func aZoneTheInvitationLacksComesFromLibical() throws {
        let lines = "UID:z1@example.com\r\nDTSTAMP:20260301T000000Z\r\nDTSTART;TZID=Asia/Taipei:20260312T200000\r\n" +
            "DTEND;TZID=Made/Up:20260312T210000\r\nORGANIZER:mailto:jordan@example.org\r\nATTENDEE;RSVP=TRUE:mailto:mei@example.tw\r\n"
        let reply = try ITIPReply.make(invitation: invitation(event: lines), attendee: "mei@example.tw", answer: .accepted, comment: nil, now: now)
        #expect(reply.calendar.contains("BEGIN:VTIMEZONE\r\nTZID:Asia/Taipei\r\n"))
        #expect(!reply.calendar.contains("TZID:Made/Up\r\n"))
        let events = try #require(ICalendarReader.read(reply.calendar).first?.events)
        #expect(events.first?.start?.utc == 1_773_316_800)  // 20:00 in Taipei is 12:00 UTC
    }

    /// The attendee's line keeps its parameters but RSVP, and PARTSTAT is the answer.
    @Test func attendeeLineKeepsItsParameters() throws {
        let reply = try ITIPReply.make(invitation: weekly, attendee: "wei.chen@example.tw", answer: .declined, comment: nil, now: now)
        let lines = unfolded(reply.calendar).filter { $0.hasPrefix("ATTENDEE") }
        #expect(lines == [
            "ATTENDEE;CN=Wei Chen;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;X-NUM-GUESTS=0;PARTSTAT=DECLINED:mailto:wei.chen@example.tw",
            "ATTENDEE;CN=Wei Chen;PARTSTAT=DECLINED:MAILTO:Wei.Chen@example.tw",
        ])
        #expect(unfolded(reply.calendar).filter { $0.hasPrefix("ORGANIZER") }
                == ["ORGANIZER;CN=Jürgen Müller;SENT-BY=\"mailto:assistant@example.de\":mailto:juergen@example.de"]
                    + ["ORGANIZER;CN=Jürgen Müller:mailto:juergen@example.de"])
    }

    /// An instance that does not list the attendee (who was taken off it) gets no answer.
    @Test func instanceWithoutTheAttendeeIsLeftOut() throws {
        let reply = try ITIPReply.make(invitation: weekly, attendee: "other@example.com", answer: .tentative, comment: nil, now: now)
        let events = try #require(ICalendarReader.read(reply.calendar).first?.events)
        #expect(events.count == 1 && events.first?.recurrenceID == nil)
        #expect(events.first?.attendees == [ICalPerson(address: "other@example.com", name: "Other", status: "TENTATIVE")])
    }

    @Test(arguments: ["wei.chen@example.tw", "WEI.CHEN@EXAMPLE.TW", "MAILTO:Wei.Chen@Example.TW", "mailto:wei.chen@example.tw", " Mailto:wei.chen@example.tw "])
    func attendeeMatchedWhateverItsCase(me: String) throws {
        let reply = try ITIPReply.make(invitation: weekly, attendee: me, answer: .accepted, comment: nil, now: now)
        #expect(ICalendarReader.read(reply.calendar).first?.events.map { $0.attendees.map(\.address) } == [["wei.chen@example.tw"], ["Wei.Chen@example.tw"]])
    }

    @Test func notAnAttendee() throws {
        let error = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: weekly, attendee: "mailto:crasher@example.net", answer: .accepted, comment: nil, now: now)
        }
        #expect(error.description == "crasher@example.net is not among the invitation's attendees")
    }

    @Test(arguments: ["PUBLISH", "CANCEL", "REPLY", "COUNTER", "refresh"])
    func otherMethodsAreNoInvitations(method: String) throws {
        let calendar = weekly.replacingOccurrences("METHOD:REQUEST", with: "METHOD:" + method)
        let error = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: calendar, attendee: "wei.chen@example.tw", answer: .accepted, comment: nil, now: now)
        }
        #expect(error.description == "not an invitation: METHOD:\(method.uppercased())")
    }

    /// A calendar without METHOD that names an organizer and the attendee is answered.
    @Test func noMethodIsAnswered() throws {
        let calendar = weekly.replacingOccurrences("METHOD:REQUEST\r\n", with: "")
        let reply = try ITIPReply.make(invitation: calendar, attendee: "wei.chen@example.tw", answer: .accepted, comment: nil, now: now)
        checkReply(reply, to: calendar, me: "wei.chen@example.tw", answer: .accepted)
    }

    @Test func noOrganizer() throws {
        let calendar = invitation(event: "UID:u1\r\nDTSTART:20260310T100000Z\r\nATTENDEE:mailto:me@example.com\r\n")
        let error = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: calendar, attendee: "me@example.com", answer: .accepted, comment: nil, now: now)
        }
        #expect(error.description == "the invitation has no ORGANIZER to reply to")
        // without METHOD either, it is a calendar file: no invitation at all
        let noMethod = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: calendar.replacingOccurrences("METHOD:REQUEST\r\n", with: ""), attendee: "me@example.com", answer: .accepted, comment: nil, now: now)
        }
        #expect(noMethod.description == "not an invitation: no METHOD and no ORGANIZER")
    }

    @Test(arguments: [
        ("", "not an iCalendar object"),
        ("Dear all, see you on Tuesday.", "not an iCalendar object"),
        ("BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:u1\r\nORGANIZER:mailto:o@example.com\r\n", "not an iCalendar object"),
        ("BEGIN:VEVENT\r\nUID:u1\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\nEND:VEVENT\r\n", "not an iCalendar object: no VCALENDAR"),
        ("BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VTODO\r\nUID:u1\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "the invitation holds no event"),
        ("BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
         "an event of the invitation has no UID"),
        (invitation(event: "UID:u1\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:u2\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\n"),
         "the invitation holds more than one meeting (UIDs u1 and u2)"),
    ])
    func malformed(text: String, error expected: String) throws {
        let error = try #require(throws: ITIPError.self) {
            try ITIPReply.make(invitation: text, attendee: "me@example.com", answer: .accepted, comment: nil, now: now)
        }
        #expect(error.description == expected)
    }

    /// Non-ASCII names and summaries, and lines far longer than 75 octets with nowhere to
    /// break: every line of the reply ends in CRLF, has at most 75 octets, and is UTF-8 on its
    /// own (no character cut in two); read back, the texts are whole.
    @Test func foldingKeepsCharactersWhole() throws {
        let summary = String(repeating: "會議議題：第一季預算與人事調整", count: 6) + " – Überprüfung der Entwürfe"
        let name = "陳偉傑 (Chén Wěijié) 台北辦公室 專案經理 · Ἀθηνᾶ Παλλάς 🙂"
        let location = "https://meet.example.com/" + String(repeating: "x", count: 100) + String(repeating: "é", count: 40)
        let calendar = invitation(event: """
            UID:long-1\r
            DTSTART:20260310T100000Z\r
            SUMMARY:\(summary)\r
            LOCATION:\(location)\r
            ORGANIZER;CN="Müller, Jürgen":mailto:juergen@example.de\r
            ATTENDEE;CN="\(name)";RSVP=TRUE:mailto:wei.chen@example.tw\r

            """)
        let reply = try ITIPReply.make(invitation: calendar, attendee: "wei.chen@example.tw", answer: .accepted, comment: summary, now: now)
        let bytes = Array(reply.calendar.utf8)
        #expect(bytes.suffix(2) == [13, 10])
        var folded = 0
        for line in split(bytes) {
            #expect(line.count <= 75, "\(String(decoding: line, as: UTF8.self))")
            #expect(String(validating: line, as: UTF8.self) != nil, "a line that is not UTF-8 on its own")
            if line.first == 32 { folded += 1 }
        }
        #expect(folded >= 12)
        #expect(reply.summary == summary && reply.organizerName == "Müller, Jürgen")
        let event = try #require(ICalendarReader.read(reply.calendar).first?.events.first)
        #expect(event.property("SUMMARY") == summary && event.property("LOCATION") == location && event.property("COMMENT") == summary)
        #expect(event.attendees == [ICalPerson(address: "wei.chen@example.tw", name: name, status: "ACCEPTED")])
        #expect(event.organizer?.name == "Müller, Jürgen")
    }

    /// A comment with the characters iCalendar text escapes: written escaped, read back whole.
    @Test func commentIsEscaped() throws {
        let comment = "Sorry, I can't; I'm away\nback on the 20th \\ call me"
        let reply = try ITIPReply.make(invitation: weekly, attendee: "wei.chen@example.tw", answer: .declined, comment: comment, now: now)
        #expect(unfolded(reply.calendar).contains("COMMENT:Sorry\\, I can't\\; I'm away\\nback on the 20th \\\\ call me"))
        let events = try #require(ICalendarReader.read(reply.calendar).first?.events)
        #expect(events.count == 2 && events.allSatisfy { $0.property("COMMENT") == comment })
        let none = try ITIPReply.make(invitation: weekly, attendee: "wei.chen@example.tw", answer: .declined, comment: nil, now: now)
        #expect(!none.calendar.contains("COMMENT"))
    }

    /// Thunderbird's test invitations have DTEND and DURATION both (RFC 5545 forbids it): the reply keeps DTEND;
    /// DURATION alone is kept.
    @Test func durationOnlyWithoutEnd() throws {
        let both = invitation(event: "UID:d1\r\nDTSTART:20260310T100000Z\r\nDTEND:20260310T103000Z\r\nDURATION:PT1H\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\n")
        let reply = try ITIPReply.make(invitation: both, attendee: "me@example.com", answer: .accepted, comment: nil, now: now)
        #expect(reply.calendar.contains("DTEND:20260310T103000Z\r\n") && !reply.calendar.contains("DURATION"))
        let alone = invitation(event: "UID:d1\r\nDTSTART:20260310T100000Z\r\nDURATION:PT1H\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:me@example.com\r\n")
        let replyAlone = try ITIPReply.make(invitation: alone, attendee: "me@example.com", answer: .accepted, comment: nil, now: now)
        #expect(replyAlone.calendar.contains("DURATION:PT1H\r\n"))
        #expect(ICalendarReader.read(replyAlone.calendar).first?.events.first?.end?.localText == "2026-03-10T11:00:00")
    }
}

// MARK: checks

/// What every reply must be, against the invitation it answers, read back with the module's
/// own reader.
private func checkReply(_ reply: ITIPReply, to invitation: String, me: String, answer: ParticipationAnswer, sourceLocation: SourceLocation = #_sourceLocation) {
    let address = me.lowercased().hasPrefix("mailto:") ? String(me.dropFirst(7)) : me
    guard let asked = ICalendarReader.read(invitation).first, let answered = ICalendarReader.read(reply.calendar).first else {
        Issue.record("unreadable", sourceLocation: sourceLocation)
        return
    }
    #expect(answered.method == "REPLY", sourceLocation: sourceLocation)
    #expect(answered.errors.isEmpty && answered.events.allSatisfy(\.errors.isEmpty), "\(answered.errors)", sourceLocation: sourceLocation)
    let mine = asked.events.filter { $0.attendees.contains { $0.address.lowercased() == address.lowercased() } }
    #expect(answered.events.count == mine.count, sourceLocation: sourceLocation)
    for (a, q) in zip(answered.events, mine) {
        #expect(a.uid == q.uid && a.uid == reply.uid, sourceLocation: sourceLocation)
        #expect(a.sequence == (q.sequence ?? 0), sourceLocation: sourceLocation)
        #expect(a.recurrenceID == q.recurrenceID, sourceLocation: sourceLocation)
        #expect(a.start == q.start && a.end == q.end, sourceLocation: sourceLocation)
        #expect(a.property("SUMMARY") == q.property("SUMMARY"), sourceLocation: sourceLocation)
        #expect(a.dtstamp?.kind == .utc && a.dtstamp?.utc == now, sourceLocation: sourceLocation)
        #expect(a.organizer == q.organizer && a.organizer?.address.lowercased() == reply.organizer.lowercased(), sourceLocation: sourceLocation)
        let before = q.attendees.first { $0.address.lowercased() == address.lowercased() }
        #expect(a.attendees.count == 1, sourceLocation: sourceLocation)
        #expect(a.attendees.first?.address.lowercased() == address.lowercased(), sourceLocation: sourceLocation)
        #expect(a.attendees.first?.status == answer.rawValue.uppercased(), sourceLocation: sourceLocation)
        #expect(a.attendees.first?.rsvp == nil, sourceLocation: sourceLocation)
        #expect(a.attendees.first?.name == before?.name && a.attendees.first?.role == before?.role, sourceLocation: sourceLocation)
    }
    #expect(reply.organizerName == (asked.events.first { $0.recurrenceID == nil } ?? asked.events.first)?.organizer?.name, sourceLocation: sourceLocation)
    for line in split(Array(reply.calendar.utf8)) { #expect(line.count <= 75, sourceLocation: sourceLocation) }
}

// MARK: the invitations

/// A weekly meeting in Berlin time with its third instance moved, the zone it uses and one it
/// does not, an alarm, and three attendees (one taken off the moved instance).
private let weekly = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//Example Corp.//CalDAV Client//EN\r
    METHOD:REQUEST\r
    BEGIN:VTIMEZONE\r
    TZID:Asia/Tokyo\r
    BEGIN:STANDARD\r
    DTSTART:19700101T000000\r
    TZOFFSETFROM:+0900\r
    TZOFFSETTO:+0900\r
    END:STANDARD\r
    END:VTIMEZONE\r
    BEGIN:VTIMEZONE\r
    TZID:Europe/Berlin\r
    BEGIN:STANDARD\r
    DTSTART:19701025T030000\r
    TZOFFSETFROM:+0200\r
    TZOFFSETTO:+0100\r
    RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
    END:STANDARD\r
    BEGIN:DAYLIGHT\r
    DTSTART:19700329T020000\r
    TZOFFSETFROM:+0100\r
    TZOFFSETTO:+0200\r
    RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
    END:DAYLIGHT\r
    END:VTIMEZONE\r
    BEGIN:VEVENT\r
    UID:weekly-review@example.de\r
    DTSTAMP:20260301T100000Z\r
    DTSTART;TZID=Europe/Berlin:20260310T100000\r
    DTEND;TZID=Europe/Berlin:20260310T110000\r
    RRULE:FREQ=WEEKLY;COUNT=8\r
    SUMMARY:Design review\r
    DESCRIPTION:Agenda to follow.\r
    ORGANIZER;CN=Jürgen Müller;SENT-BY="mailto:assistant@example.de":mailto:juergen@example.de\r
    ATTENDEE;CN=Jürgen Müller;PARTSTAT=ACCEPTED:mailto:juergen@example.de\r
    ATTENDEE;CN=Wei Chen;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;X-NUM-GUESTS=0:mailto:wei.chen@example.tw\r
    ATTENDEE;CN=Other;RSVP=TRUE:mailto:other@example.com\r
    BEGIN:VALARM\r
    ACTION:DISPLAY\r
    TRIGGER:-PT15M\r
    DESCRIPTION:Reminder\r
    END:VALARM\r
    END:VEVENT\r
    BEGIN:VEVENT\r
    UID:weekly-review@example.de\r
    RECURRENCE-ID;TZID=Europe/Berlin:20260317T100000\r
    SEQUENCE:3\r
    DTSTAMP:20260301T100000Z\r
    DTSTART;TZID=Europe/Berlin:20260317T140000\r
    DTEND;TZID=Europe/Berlin:20260317T150000\r
    SUMMARY:Design review (moved)\r
    ORGANIZER;CN=Jürgen Müller:mailto:juergen@example.de\r
    ATTENDEE;CN=Wei Chen;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:MAILTO:Wei.Chen@example.tw\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

/// A REQUEST around the given VEVENT lines.
private func invitation(event: String) -> String {
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\n" + event + "END:VEVENT\r\nEND:VCALENDAR\r\n"
}

// MARK: text

/// The lines of CRLF text (the last CRLF ends the last line).
private func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var i = 0
    while i + 1 < bytes.count {
        if bytes[i] == 13 && bytes[i + 1] == 10 {
            lines.append(bytes[start..<i])
            start = i + 2
            i += 2
        } else {
            #expect(bytes[i] != 10 && bytes[i] != 13, "a line end that is not CRLF")
            i += 1
        }
    }
    if start < bytes.count { lines.append(bytes[start...]) }
    return lines
}

/// The content lines of iCalendar text, folding undone.
private func unfolded(_ text: String) -> [String] {
    var lines: [String] = []
    for line in split(Array(text.utf8)) {
        let s = String(decoding: line, as: UTF8.self)
        if line.first == 32, !lines.isEmpty { lines[lines.count - 1] += s.dropFirst() } else { lines.append(s) }
    }
    return lines
}

/// The first text/calendar part of a mail, its transfer encoding (quoted-printable, base64 or
/// none) undone. Enough MIME for Thunderbird's test mails: parts start at a boundary line.
private func calendarPart(ofMail mail: [UInt8]) -> String? {
    let lines = String(decoding: mail, as: UTF8.self)
        .split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    var i = 0
    while i < lines.count {
        // a part's headers, up to the empty line
        var isCalendar = false, encoding = ""
        while i < lines.count, !lines[i].isEmpty {
            let header = lines[i].lowercased()
            if header.hasPrefix("content-type: text/calendar") { isCalendar = true }
            if header.hasPrefix("content-transfer-encoding:") { encoding = header.dropFirst(26).filter { $0 != " " } }
            i += 1
        }
        i += 1
        var body: [Substring] = []
        while i < lines.count, !lines[i].hasPrefix("--") {
            body.append(lines[i])
            i += 1
        }
        i += 1
        guard isCalendar else { continue }
        switch encoding {
        case "base64": return String(decoding: base64(body.joined()), as: UTF8.self)
        case "quoted-printable": return String(decoding: quotedPrintable(body), as: UTF8.self)
        default: return body.joined(separator: "\r\n")
        }
    }
    return nil
}

private func base64(_ text: String) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = [], bits = 0, count = 0
    for c in text.utf8 {
        guard let v = alphabet.firstIndex(of: c) else { continue }
        bits = bits << 6 | v
        count += 6
        if count >= 8 {
            count -= 8
            out.append(UInt8(truncatingIfNeeded: bits >> count))
            bits &= (1 << count) - 1
        }
    }
    return out
}

private func quotedPrintable(_ lines: [Substring]) -> [UInt8] {
    var out: [UInt8] = []
    for line in lines {
        let b = Array(line.utf8)
        var i = 0
        var soft = false
        while i < b.count {
            if b[i] == UInt8(ascii: "="), i + 2 < b.count, let hex = UInt8(String(decoding: b[i + 1...i + 2], as: UTF8.self), radix: 16) {
                out.append(hex)
                i += 3
            } else if b[i] == UInt8(ascii: "="), i == b.count - 1 {
                soft = true
                i += 1
            } else {
                out.append(b[i])
                i += 1
            }
        }
        if !soft { out += [13, 10] }
    }
    return out
}

/// The names in a folder of the package (no dot files), sorted.
private func entries(_ relative: String) -> [String] {
    guard let dir = opendir(packageRoot + "/" + relative) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !name.hasPrefix("."), entry.pointee.d_type == DT_REG { names.append(name) }
    }
    return names.sorted()
}

/// The package root, two folders above this file.
private let packageRoot = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))

private struct ReadError: Error {}

private func read(_ relative: String) throws -> [UInt8] {
    let fd = open(packageRoot + "/" + relative, O_RDONLY)
    guard fd >= 0 else { throw ReadError() }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = Glibc.read(fd, &buffer, buffer.count)
        guard n > 0 else { break }
        out += buffer[0..<n]
    }
    return out
}

private extension String {
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

