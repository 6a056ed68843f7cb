import Testing
import JSONLines
@testable import Events

/// A calendar of one VEVENT with these property lines (CRLF added), and optional extra lines
/// before the event (METHOD, VTIMEZONE, X-WR-TIMEZONE).
func calendar(_ lines: [String], head: [String] = []) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//mailpipe//tests//EN"] + head + ["BEGIN:VEVENT"] + lines
        + ["END:VEVENT", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

func event(_ lines: [String], head: [String] = [], contentMethod: String? = nil, floatingZone: String? = nil) throws -> Event {
    let events = try #require(CalendarEvents.events(in: calendar(lines, head: head), contentMethod: contentMethod, floatingZone: floatingZone))
    try #require(events.count == 1)
    return events[0]
}

@Suite struct TimeZones {
    @Test func anIANAZoneIsReadWithoutAVTIMEZONE() throws {
        let e = try event(["UID:a", "DTSTART;TZID=Europe/Berlin:20260710T100000", "DTEND;TZID=Europe/Berlin:20260710T113000"])
        #expect(e.start == "2026-07-10T08:00:00Z" && e.end == "2026-07-10T09:30:00Z")
        #expect(e.timeZone == "Europe/Berlin" && e.startLocal == "2026-07-10T10:00:00" && e.endLocal == "2026-07-10T11:30:00")
        #expect(e.defects.isEmpty && !e.allDay)
    }

    @Test func winterAndSummerTimeDiffer() throws {
        let winter = try event(["UID:a", "DTSTART;TZID=America/New_York:20260115T090000"])
        let summer = try event(["UID:a", "DTSTART;TZID=America/New_York:20260715T090000"])
        #expect(winter.start == "2026-01-15T14:00:00Z" && summer.start == "2026-07-15T13:00:00Z")
    }

    @Test func outlooksWindowsNamesMapToIANA() throws {
        let e = try event(["UID:a", "DTSTART;TZID=Taipei Standard Time:20260312T103000", "DTEND;TZID=Taipei Standard Time:20260312T110000"])
        #expect(e.timeZone == "Asia/Taipei" && e.start == "2026-03-12T02:30:00Z" && e.end == "2026-03-12T03:00:00Z")
        let w = try event(["UID:a", "DTSTART;TZID=\"W. Europe Standard Time\":20260312T103000"])
        #expect(w.timeZone == "Europe/Berlin" && w.start == "2026-03-12T09:30:00Z")
    }

    @Test func aVendorPrefixIsLookedThrough() throws {
        let e = try event(["UID:a", "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Paris:20260312T103000"])
        #expect(e.timeZone == "Europe/Paris" && e.start == "2026-03-12T09:30:00Z")
    }

    @Test func theCalendarsOwnVTIMEZONEWins() throws {
        // a private zone name, two hours east all year: only the VTIMEZONE says so
        let zone = ["BEGIN:VTIMEZONE", "TZID:Office Time", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                    "TZOFFSETFROM:+0200", "TZOFFSETTO:+0200", "END:STANDARD", "END:VTIMEZONE"]
        let e = try event(["UID:a", "DTSTART;TZID=Office Time:20260312T103000"], head: zone)
        #expect(e.start == "2026-03-12T08:30:00Z" && e.startLocal == "2026-03-12T10:30:00")
        #expect(e.timeZone == nil && e.defects.isEmpty)
    }

    @Test func aVTIMEZONEKeptFromAnEarlierCalendarIsTheOneWithTheSameText() throws {
        // zones are kept from calendar to calendar by their text, not their TZID
        func zone(_ offset: String, rule: [String] = []) -> [String] {
            ["BEGIN:VTIMEZONE", "TZID:Office Time", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:\(offset)",
             "TZOFFSETTO:\(offset)"] + rule + ["END:STANDARD", "END:VTIMEZONE"]
        }
        let lines = ["UID:a", "DTSTART;TZID=Office Time:20260312T103000"]
        for _ in 0..<2 {
            #expect(try event(lines, head: zone("+0200")).start == "2026-03-12T08:30:00Z")
            #expect(try event(lines, head: zone("+0500")).start == "2026-03-12T05:30:00Z")
            #expect(try event(lines, head: zone("-0300", rule: ["RRULE:FREQ=DAILY"])).start == "2026-03-12T13:30:00Z")
        }
    }

    @Test func utcTimesOutside1902To9999AreTheirInstants() throws {
        // libical's icaltime_as_timet answers -1 there, which read as 1969-12-31T23:59:59Z
        let e = try event(["UID:a", "DTSTART:19010301T120000Z", "DTEND:19010301T133000Z", "RDATE:19000101T000000Z"])
        #expect(e.start == "1901-03-01T12:00:00Z" && e.end == "1901-03-01T13:30:00Z")
        #expect(e.recurrence?.rdates == ["1900-01-01T00:00:00Z"] && e.defects.isEmpty)
        let late = try event(["UID:a", "DTSTART:99991231T230000Z", "DURATION:PT2H"])
        #expect(late.end == "10000-01-01T01:00:00Z" && late.defects.isEmpty)
    }

    @Test func anUnknownZoneIsADefectNotUTC() throws {
        let e = try event(["UID:a", "DTSTART;TZID=Mars/Olympus_Mons:20260312T103000"])
        #expect(e.start == nil && e.startLocal == "2026-03-12T10:30:00")
        #expect(e.defects == ["unknown_time_zone"])
    }

    @Test func floatingTimesStayLocalUnlessAZoneIsGiven() throws {
        let lines = ["UID:a", "DTSTART:20260312T103000", "DTEND:20260312T113000"]
        let floating = try event(lines)
        #expect(floating.start == nil && floating.end == nil && floating.startLocal == "2026-03-12T10:30:00" && floating.timeZone == nil)
        let read = try event(lines, floatingZone: "Asia/Tokyo")
        #expect(read.start == "2026-03-12T01:30:00Z" && read.timeZone == "Asia/Tokyo")
        let google = try event(lines, head: ["X-WR-TIMEZONE:America/Los_Angeles"])
        #expect(google.start == "2026-03-12T17:30:00Z" && google.timeZone == "America/Los_Angeles")
    }

    @Test func anEndInAnotherZoneIsShownOnTheStartsClock() throws {
        let e = try event(["UID:flight", "DTSTART;TZID=Europe/London:20260601T090000", "DTEND;TZID=Asia/Taipei:20260602T060000"])
        #expect(e.start == "2026-06-01T08:00:00Z" && e.end == "2026-06-01T22:00:00Z")
        #expect(e.endLocal == "2026-06-01T23:00:00")
    }

    @Test func utcTimesHaveNoZone() throws {
        let e = try event(["UID:a", "DTSTART:20260312T103000Z", "DTEND:20260312T113000Z"])
        #expect(e.start == "2026-03-12T10:30:00Z" && e.timeZone == nil && e.startLocal == "2026-03-12T10:30:00")
    }
}

@Suite struct Ends {
    @Test func anAllDayEventLastsItsDay() throws {
        let e = try event(["UID:bday", "DTSTART;VALUE=DATE:19500314", "RRULE:FREQ=YEARLY"])
        #expect(e.allDay && e.start == "1950-03-14" && e.end == "1950-03-15" && e.recurrence?.rule == "FREQ=YEARLY")
        let d = try event(["UID:bday", "DTSTART;VALUE=DATE:20261231"])
        #expect(d.allDay && d.start == "2026-12-31" && d.end == "2027-01-01" && d.timeZone == nil)
        #expect(d.startLocal == "2026-12-31" && d.endLocal == "2027-01-01")
    }

    @Test func aDurationGivesTheEnd() throws {
        let e = try event(["UID:a", "DTSTART;TZID=Europe/Berlin:20260710T100000", "DURATION:PT1H30M"])
        #expect(e.end == "2026-07-10T09:30:00Z" && e.endLocal == "2026-07-10T11:30:00")
        let days = try event(["UID:a", "DTSTART;VALUE=DATE:20260710", "DURATION:P3D"])
        #expect(days.end == "2026-07-13")
    }

    @Test func aTimedEventWithNoEndIsAnInstant() throws {
        let e = try event(["UID:a", "DTSTART:20260312T103000Z"])
        #expect(e.end == e.start)
    }

    @Test func anEndBeforeTheStartIsADefect() throws {
        let e = try event(["UID:a", "DTSTART:20260312T103000Z", "DTEND:20260312T093000Z"])
        #expect(e.defects == ["end_before_start"])
    }

    @Test func aMissingStartIsADefectExceptInACancelOrReply() throws {
        #expect(try event(["UID:a", "SUMMARY:x"], head: ["METHOD:REQUEST"]).defects.contains("missing_dtstart"))
        #expect(try event(["UID:a", "SUMMARY:x"], head: ["METHOD:CANCEL"]).defects.isEmpty)
        #expect(try event(["SUMMARY:x", "DTSTART:20260312T103000Z"]).defects == ["missing_uid"])
    }

    @Test func unreadableValuesAreNamed() throws {
        let e = try event(["UID:a", "DTSTART:20260312T103000Z", "RRULE:FREQ=SOMETIMES;COUNT=x", "DTEND:2026"])
        #expect(e.defects.contains("invalid_rrule") && e.defects.contains("invalid_dtend"))
        #expect(e.recurrence == nil)
    }
}

@Suite struct Fields {
    @Test func theInvitationsFieldsAreRead() throws {
        let e = try event([
            "UID:meet-1@example.com", "SEQUENCE:3", "DTSTAMP:20260301T120000Z", "STATUS:TENTATIVE",
            "SUMMARY:Quarterly review\\, Q1", "DESCRIPTION:Agenda:\\nnumbers", "LOCATION:Room 4",
            "DTSTART:20260312T103000Z",
            "ORGANIZER;CN=Ana Lima:mailto:ana@example.com",
            "ATTENDEE;CN=Bo;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:bo@example.com",
            "ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION:MAILTO:cy@example.com",
            "RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=4", "EXDATE:20260319T103000Z,20260326T103000Z",
        ], head: ["METHOD:REQUEST"])
        #expect(e.uid == "meet-1@example.com" && e.sequence == 3 && e.dtstamp == "2026-03-01T12:00:00Z")
        #expect(e.method == "REQUEST" && e.status == "tentative")
        #expect(e.summary == "Quarterly review, Q1" && e.description == "Agenda:\nnumbers" && e.location == "Room 4")
        #expect(e.organizer == Event.Person(name: "Ana Lima", address: "ana@example.com"))
        #expect(e.attendees == [
            Event.Person(name: "Bo", address: "bo@example.com", role: "req-participant", status: "accepted", rsvp: true),
            Event.Person(name: nil, address: "cy@example.com", role: "opt-participant", status: "needs-action", rsvp: false),
        ])
        #expect(e.recurrence == Event.Recurrence(rule: "FREQ=WEEKLY;COUNT=4;BYDAY=TH", rdates: [],
                                                 exdates: ["2026-03-19T10:30:00Z", "2026-03-26T10:30:00Z"]))
    }

    @Test func outlooksSequenceStandsInForAMissingOne() throws {
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z", "X-MICROSOFT-CDO-APPT-SEQUENCE:2"]).sequence == 2)
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z", "SEQUENCE:1", "X-MICROSOFT-CDO-APPT-SEQUENCE:2"]).sequence == 1)
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z"]).sequence == 0)
    }

    @Test func theContentTypesMethodIsUsedWhenTheCalendarHasNone() throws {
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z"], contentMethod: "cancel").method == "CANCEL")
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z"], head: ["METHOD:REQUEST"], contentMethod: "CANCEL").method == "REQUEST")
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z"]).method == nil)
    }

    @Test func theMeetingLinkComesFromWhereEachVendorPutsIt() throws {
        let base = ["UID:a", "DTSTART:20260312T103000Z"]
        #expect(try event(base + ["X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij", "URL:https://example.com/e"]).url
                == "https://meet.google.com/abc-defg-hij")
        #expect(try event(base + ["X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/x"]).url
                == "https://teams.microsoft.com/l/meetup-join/x")
        #expect(try event(base + ["DESCRIPTION:Join: https://us02web.zoom.us/j/8123456789?pwd=x (passcode 1)"]).url
                == "https://us02web.zoom.us/j/8123456789?pwd=x")
        #expect(try event(base + ["DESCRIPTION:Menu at https://restaurant.example/menu"]).url == nil)
    }

    @Test func statusWordsAreLowercase() throws {
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z", "STATUS:CANCELLED"]).status == "cancelled")
        #expect(try event(["UID:a", "DTSTART:20260312T103000Z", "STATUS:NEEDS-ACTION"]).status == nil)
    }

    @Test func textThatIsNoCalendarIsNone() {
        #expect(CalendarEvents.events(in: "Dear customer, your order", contentMethod: nil, floatingZone: nil) == nil)
        #expect(CalendarEvents.events(in: "", contentMethod: nil, floatingZone: nil) == nil)
    }
}

@Suite struct Records {
    func record(calendar: [String], methods: [String?] = []) throws -> JSONRecord {
        var w = JSONWriter()
        w.beginObject()
        w.field("subject", "Invitation")
        w.key("calendar")
        w.beginArray()
        for c in calendar { w.string(c) }
        w.endArray()
        w.key("calendar_methods")
        w.beginArray()
        for m in methods { if let m { w.string(m) } else { w.null() } }
        w.endArray()
        w.field("defects", strings: ["missing_date"])
        w.endObject()
        return try JSONRecord(w.bytes)
    }

    @Test func theSameInvitationTwiceIsOneEvent() throws {
        let c = calendar(["UID:a", "DTSTART:20260312T103000Z", "DTSTAMP:20260301T000000Z"], head: ["METHOD:REQUEST"])
        let (events, unreadable) = try EventExtract().events(in: record(calendar: [c, c], methods: ["REQUEST", nil]))
        #expect(events.count == 1 && unreadable == 0)
    }

    @Test func anUnreadableCalendarIsAMessageDefect() throws {
        let r = try record(calendar: ["not a calendar"])
        let (events, unreadable) = try EventExtract().events(in: r)
        #expect(events.isEmpty && unreadable == 1)
        #expect(String(decoding: EventExtract.defects(r, adding: ["unreadable_calendar"]), as: UTF8.self) == #"["missing_date","unreadable_calendar"]"#)
    }

    @Test func aRecordWithoutMailFieldsIsNoMessage() throws {
        #expect(throws: (any Error).self) { try EventExtract().events(in: JSONRecord(#"{"x":1}"#)) }
    }
}

struct ChangedOccurrences {
    /// Outlook names a changed day of an all-day series by its midnight in a zone: the day is
    /// that midnight's date there, not the UTC instant's (2020-04-15T23:00Z).
    @Test func aDayOfAnAllDaySeriesNamedByItsMidnight() throws {
        let e = try event(["UID:bins", "RECURRENCE-ID;TZID=Europe/London:20200416T000000", "DTSTART;VALUE=DATE:20200417",
                           "DTEND;VALUE=DATE:20200418"])
        #expect(e.recurrenceID == "2020-04-16")
        #expect(e.defects.contains("recurrence_id_not_a_date"))
        let timed = try event(["UID:t", "RECURRENCE-ID;TZID=Europe/London:20200416T090000", "DTSTART;TZID=Europe/London:20200417T090000"])
        #expect(timed.recurrenceID == "2020-04-16T08:00:00Z" && !timed.defects.contains("recurrence_id_not_a_date"))
    }
}
