import ICalendar
import JSONLines
import StructuredData
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
            let (calendarEvents, unreadable) = try events(in: record)
            let markup = schemaOrg(in: record)
            let events = calendarEvents + SchemaOrgEvents.events(markup.items, floatingZone: floatingZone)
            var updates: [(key: String, value: [UInt8]?)] = [("events", Self.json(events)), ("schema_org", Self.json(markup.items))]
            var defects = markup.defects
            if unreadable > 0 { defects.append("unreadable_calendar") }
            if !defects.isEmpty { updates.append(("defects", Self.defects(record, adding: defects))) }
            return record.updated(updates)
        }
    }

    /// The schema.org items of the message's HTML: as an earlier event-extract left them in
    /// `schema_org`, else read from `html` (which must be the sender's: html-sanitize drops
    /// scripts and microdata).
    func schemaOrg(in record: JSONRecord) -> SchemaOrg.Markup {
        if let items = record.value("schema_org")?.arrayValue { return SchemaOrg.Markup(items: items) }
        guard let raw = record.rawValue("html"), SchemaOrg.mayHaveMarkup(raw), let html = record.string("html") else { return SchemaOrg.Markup() }
        return SchemaOrg.read(html: Array(html.utf8))
    }

    /// The events of a record, and how many of its calendar parts libical could not read.
    func events(in record: JSONRecord) throws -> (events: [Event], unreadable: Int) {
        guard ["calendar", "subject", "text", "html"].contains(where: { record.member($0) != nil }) else { throw NotAMessage() }
        guard let raw = record.rawValue("calendar"), raw.first == UInt8(ascii: "["), raw.count > 2,
              let parts = record.value("calendar")?.arrayValue else { return ([], 0) }
        let methods = record.value("calendar_methods")?.arrayValue ?? []
        var events: [Event] = []
        var seen = Set<Event>()
        var unreadable = 0
        for (k, part) in parts.enumerated() {
            guard let text = part.stringValue else { continue }
            let method = k < methods.count ? methods[k].stringValue : nil
            if let found = CalendarEvents.events(in: text, contentMethod: method, floatingZone: floatingZone) {
                // the same invitation often comes twice: as the text/calendar body and as invite.ics
                for e in found where seen.insert(e).inserted { events.append(e) }
            } else {
                unreadable += 1
            }
        }
        return (events, unreadable)
    }

    static func defects(_ record: JSONRecord, adding added: [String]) -> [UInt8] {
        var names = record.value("defects")?.arrayValue?.compactMap(\.stringValue) ?? []
        for name in added where !names.contains(name) { names.append(name) }
        var w = JSONWriter(capacity: 64)
        w.beginArray()
        for n in names { w.string(n) }
        w.endArray()
        return w.bytes
    }

    static func json(_ items: [JSONValue]) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginArray()
        for item in items { w.value(item) }
        w.endArray()
        return w.bytes
    }

    public static func json(_ events: [Event]) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginArray()
        for e in events {
            w.beginObject()
            e.writeFields(&w)
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }
}

extension EventExtract {
    /// Whether libical knows the IANA zone `id` (from the system's zoneinfo).
    public static func isKnownZone(_ id: String) -> Bool { ICalendarReader.isKnownZone(id) }
}
