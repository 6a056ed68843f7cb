import CivilTime
import ICalendar
import UTF8Text

/// An event as event-extract writes it (mailpipe(5)): one VEVENT of an invitation, read.
public struct Event: Hashable, Sendable {
    public struct Person: Hashable, Sendable {
        public var name: String?
        public var address: String
        public var role: String?
        public var status: String?
        public var rsvp = false
    }

    public struct Recurrence: Hashable, Sendable {
        public var rule: String?
        public var rdates: [String] = []
        public var exdates: [String] = []
    }

    public var uid: String?
    public var recurrenceID: String?
    public var sequence = 0
    public var dtstamp: String?
    public var method: String?
    public var status: String?
    public var summary: String?
    public var description: String?
    public var location: String?
    public var url: String?
    public var start: String?
    public var end: String?
    public var allDay = false
    public var timeZone: String?
    public var startLocal: String?
    public var endLocal: String?
    public var recurrence: Recurrence?
    public var organizer: Person?
    /// Who sent the message this event was read from when a mail forwarded it (text-extract's
    /// `forwarded_message`): the clinic whose confirmation a family member passed on.
    public var forwardedFrom: Person?
    public var attendees: [Person] = []
    public var source = "icalendar"
    /// What is booked or met: `event` (an invitation, a ticket), `flight`, `lodging`,
    /// `restaurant`, `rental_car`, `train`, `bus`, `boat`, `taxi`, `appointment`, `prescription`.
    public var kind = "event"
    public var reservationNumber: String?
    /// For a prescription: `collect` (ready at the pharmacy) or `reorder` (a repeat or refill due).
    public var prescription: String?
    /// How sure the reading is (1 for calendars and markup), and what it rests on.
    public var confidence = 1.0
    public var evidence: [String] = []
    public var defects: [String] = []

}

/// The events of an iCalendar text, as event-extract reports them.
public enum CalendarEvents {
    /// Every VEVENT in `text`; `contentMethod` is the `method=` of the part's Content-Type, used
    /// when the calendar has no METHOD. nil when libical found no calendar at all.
    public static func events(in text: String, contentMethod: String?, floatingZone: String?) -> [Event]? {
        let calendars = ICalendarReader.read(text, floatingZone: floatingZone)
        if calendars.isEmpty { return nil }
        var events: [Event] = []
        for calendar in calendars {
            let method = calendar.method ?? contentMethod?.uppercased()
            for e in calendar.events { events.append(event(e, method: method, calendarErrors: calendar.errors)) }
        }
        return events
    }

    static func event(_ e: ICalEvent, method: String?, calendarErrors: [String]) -> Event {
        var event = Event(evidence: ["icalendar"])
        var defects: [String] = []
        event.uid = e.uid
        if e.uid == nil { defects.append("missing_uid") }
        event.recurrenceID = e.recurrenceID.map { instantOrLocal($0) }
        if let id = e.recurrenceID, !id.isDate, id.localText.hasSuffix("T00:00:00"), e.start?.isDate == true {
            // a changed day of an all-day series, named by its midnight in a zone (Outlook):
            // the day is that wall clock's date, which is how the series names its days (a
            // timed occurrence made all-day keeps its instant)
            event.recurrenceID = String(id.localText.prefix(10))
            defects.append("recurrence_id_not_a_date")
        }
        event.sequence = e.sequence ?? e.property("X-MICROSOFT-CDO-APPT-SEQUENCE").flatMap { Int($0.trimmingWhitespace) } ?? 0
        event.dtstamp = e.dtstamp.map { instantOrLocal($0) }
        event.method = method
        switch e.status {
        case "CONFIRMED": event.status = "confirmed"
        case "TENTATIVE": event.status = "tentative"
        case "CANCELLED", "CANCELED": event.status = "cancelled"
        default: event.status = nil
        }
        event.summary = e.property("SUMMARY")
        event.description = e.property("DESCRIPTION")
        event.location = e.property("LOCATION")
        event.url = meetingURL(e)

        if let start = e.start {
            event.allDay = start.isDate
            var end = e.end
            if let written = end, written.isDate != start.isDate {
                defects.append("mixed_date_and_date_time")
                end = nil
            } else if let written = end, start.utc != nil, written.utc == nil {
                // a floating or unreadable end to a start in a zone ("DTEND:19970701T10300Z")
                defects.append("invalid_dtend")
                end = nil
            }
            if end == nil {
                // RFC 5545 3.6.1: a date lasts the day; a date-time with no end is an instant
                end = start.isDate ? ICalTime.date(afterDays: 1, from: start) : start
            }
            let end2 = end!
            switch start.kind {
            case .date:
                event.start = start.localText
                event.end = end2.localText
                event.startLocal = start.localText
                event.endLocal = end2.localText
            case .utc, .zoned, .floating, .unknownZone:
                event.timeZone = start.kind == .zoned ? start.zone : nil
                event.start = start.utc.map(CivilDate.rfc3339)
                event.end = end2.utc.map(CivilDate.rfc3339)
                event.startLocal = start.localText
                event.endLocal = (e.end == nil ? end2 : e.endInStartZone ?? end2).localText
            }
            if start.kind == .unknownZone || end2.kind == .unknownZone { defects.append("unknown_time_zone") }
            if isBefore(end2, start) { defects.append("end_before_start") }
        } else if method != "CANCEL" && method != "REPLY" && method != "REFRESH" {
            defects.append("missing_dtstart")
        }

        if !e.rules.isEmpty || !e.rdates.isEmpty || !e.exdates.isEmpty {
            event.recurrence = Event.Recurrence(rule: e.rules.first, rdates: e.rdates.map(instantOrLocal),
                                                exdates: e.exdates.map(instantOrLocal))
            if e.rules.count > 1 { defects.append("more_than_one_rrule") }
        }
        event.organizer = e.organizer.map { Event.Person(name: $0.name, address: $0.address) }
        event.attendees = e.attendees.map {
            Event.Person(name: $0.name, address: $0.address, role: $0.role?.lowercased(), status: $0.status?.lowercased(),
                         rsvp: $0.rsvp ?? false)
        }
        for error in calendarErrors + e.errors {
            if let name = defectName(libicalError: error) { defects.append(name) }
        }
        var seen = Set<String>()
        event.defects = defects.filter { seen.insert($0).inserted }
        return event
    }

    /// An instant as RFC 3339 UTC, a date as `YYYY-MM-DD`, a floating time as its wall clock.
    static func instantOrLocal(_ t: ICalTime) -> String {
        if let utc = t.utc { return CivilDate.rfc3339(utc) }
        return t.localText
    }

    static func isBefore(_ a: ICalTime, _ b: ICalTime) -> Bool {
        if let x = a.utc, let y = b.utc { return x < y }
        return a.localText < b.localText && a.kind == b.kind
    }

    /// libical's X-LIC-ERROR text as a defect name: "Can't parse as RECUR value in RRULE
    /// property…" is `invalid_rrule`. nil for an empty value ("No value for LOCATION
    /// property"), which RFC 5545 allows for text and clients write.
    static func defectName(libicalError text: String) -> String? {
        if text.hasPrefix("No value for") { return nil }
        if text == ICalCalendar.missingEnd { return "missing_end_vcalendar" }
        if let inRange = text.firstRange(of: " in "), let propRange = text[inRange.upperBound...].firstRange(of: " property") {
            let name = text[inRange.upperBound..<propRange.lowerBound]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "-" }) {
                return "invalid_" + name.lowercased().replacingAll("-", with: "_")
            }
        }
        if text.contains("could not find a property name") { return "unreadable_line" }
        return "calendar_parse_error"
    }

    /// The online meeting's link: the vendors' own properties first, then CONFERENCE and URL,
    /// then a meeting service's link in LOCATION or DESCRIPTION.
    static func meetingURL(_ e: ICalEvent) -> String? {
        for name in ["X-GOOGLE-CONFERENCE", "X-MICROSOFT-SKYPETEAMSMEETINGURL", "X-MICROSOFT-ONLINEMEETINGCONFLINK", "CONFERENCE", "URL"] {
            if let v = e.property(name)?.trimmingWhitespace, v.hasPrefix("http") { return v }
        }
        for name in ["LOCATION", "DESCRIPTION"] {
            if let text = e.property(name), let link = MeetingLinks.first(in: text) { return link }
        }
        return nil
    }
}

extension ICalTime {
    static func date(afterDays n: Int, from t: ICalTime) -> ICalTime {
        let (y, m, d) = CivilDate.date(days: CivilDate.days(year: t.year, month: t.month, day: t.day) + n)
        var r = t
        r.year = y; r.month = m; r.day = d
        return r
    }
}

extension StringProtocol {
    func replacingAll(_ a: Character, with b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}
