import ICalendar
import JSONLines
import UnixFilter
import UTF8Text

/// event-extract's run: each record gets `events` (see mailpipe(5)).
public struct EventExtract {
    /// The IANA zone floating times are read in, when the calendar names none.
    public var floatingZone: String?

    public init() {}

    struct NotAMessage: Error, CustomStringConvertible {
        var description: String { "no calendar, subject, text or html: not a mime-parse record" }
    }

    public func run(_ run: FilterRun) throws {
        try filterRecords(run, progressNoun: "messages") { record in
            let (events, unreadable) = try events(in: record)
            var updates: [(key: String, value: [UInt8]?)] = [("events", Self.json(events))]
            if unreadable > 0 { updates.append(("defects", Self.defects(record, adding: "unreadable_calendar"))) }
            return record.updated(updates)
        }
    }

    /// The events of a record, and how many of its calendar parts libical could not read.
    func events(in record: JSONRecord) throws -> (events: [Event], unreadable: Int) {
        guard ["calendar", "subject", "text", "html"].contains(where: { record.member($0) != nil }) else { throw NotAMessage() }
        guard let raw = record.rawValue("calendar"), raw.first == UInt8(ascii: "["), raw.count > 2,
              let parts = record.value("calendar")?.arrayValue else { return ([], 0) }
        let methods = record.value("calendar_methods")?.arrayValue ?? []
        var events: [Event] = []
        var unreadable = 0
        for (k, part) in parts.enumerated() {
            guard let text = part.stringValue else { continue }
            let method = k < methods.count ? methods[k].stringValue : nil
            if let found = CalendarEvents.events(in: text, contentMethod: method, floatingZone: floatingZone) {
                // the same invitation often comes twice: as the text/calendar body and as invite.ics
                for e in found where !events.contains(e) { events.append(e) }
            } else {
                unreadable += 1
            }
        }
        return (events, unreadable)
    }

    static func defects(_ record: JSONRecord, adding name: String) -> [UInt8] {
        var names = record.value("defects")?.arrayValue?.compactMap(\.stringValue) ?? []
        if !names.contains(name) { names.append(name) }
        var w = JSONWriter(capacity: 64)
        w.beginArray()
        for n in names { w.string(n) }
        w.endArray()
        return w.bytes
    }

    public static func json(_ events: [Event]) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginArray()
        for e in events { write(e, &w) }
        w.endArray()
        return w.bytes
    }

    public static func write(_ e: Event, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("uid", e.uid)
        w.field("recurrence_id", e.recurrenceID)
        w.field("sequence", e.sequence)
        w.field("dtstamp", e.dtstamp)
        w.field("method", e.method)
        w.field("status", e.status)
        w.field("summary", e.summary)
        w.field("description", e.description)
        w.field("location", e.location)
        w.field("url", e.url)
        w.field("start", e.start)
        w.field("end", e.end)
        w.field("all_day", e.allDay)
        w.field("time_zone", e.timeZone)
        w.field("start_local", e.startLocal)
        w.field("end_local", e.endLocal)
        w.key("recurrence")
        if let r = e.recurrence {
            w.beginObject()
            w.field("rule", r.rule)
            w.field("rdates", strings: r.rdates)
            w.field("exdates", strings: r.exdates)
            w.endObject()
        } else {
            w.null()
        }
        w.key("organizer")
        if let o = e.organizer { write(o, asAttendee: false, &w) } else { w.null() }
        w.key("attendees")
        w.beginArray()
        for a in e.attendees { write(a, asAttendee: true, &w) }
        w.endArray()
        w.field("source", e.source)
        w.field("defects", strings: e.defects)
        w.endObject()
    }

    /// An organizer is a name and an address; an attendee also has role, status and rsvp.
    static func write(_ p: Event.Person, asAttendee: Bool, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("name", p.name)
        w.field("address", p.address)
        if asAttendee {
            w.field("role", p.role)
            w.field("status", p.status)
            w.field("rsvp", p.rsvp)
        }
        w.endObject()
    }
}

extension EventExtract {
    /// Whether libical knows the IANA zone `id` (from the system's zoneinfo).
    public static func isKnownZone(_ id: String) -> Bool { ICalendarReader.isKnownZone(id) }
}
