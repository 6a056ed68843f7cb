#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import ICalendar
import JSONLines
import UnixFilter

/// event-group's run: every message's `events` in, the calendar they add up to out, one record
/// per event (or, in a window, per occurrence). See event-group(1).
public struct EventGroup {
    /// With a window, recurring events are expanded into their occurrences in it.
    public var window: Range<Int>?
    /// The zone all-day and floating events are placed in when a window is set.
    public var zone = "UTC"
    /// Also write the calendar as an iCalendar file here.
    public var icsPath: String?
    /// Steps of one recurrence rule at most, before its expansion stops with a defect.
    public var expansionLimit = 1_000_000

    public init() {}

    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String {
            name == "events" ? "the record has no events (run event-extract first)" : "the record has no \(name)"
        }
    }

    public func run(_ run: FilterRun) throws {
        var mail: [EventMail] = []
        try filterRecords(run, progressNoun: "messages") { record in
            guard let id = record.string("id") ?? record.string("message_id") else { throw MissingField(name: "id") }
            guard let events = record.value("events")?.arrayValue else { throw MissingField(name: "events") }
            let conversation = record.string("conversation_id") ?? record.string("participant_hash")
            let m = EventMail(record: record, messageID: id, conversationID: conversation, events: events)
            if !m.events.isEmpty { mail.append(m) }
            return nil
        }
        let events = EventStore(applying: mail).events.sorted { Self.sortKey($0) < Self.sortKey($1) }
        if let icsPath { try writeCalendar(events.map(\.event), to: icsPath, run) }
        if let window {
            for o in occurrences(of: events, in: window) { try run.write(Self.json(o.tracked, occurrence: o)) }
        } else {
            for t in events { try run.write(Self.json(t, occurrence: nil)) }
        }
    }

    /// The calendar's order: by start, then whatever tells two events of the same start apart
    /// the same way wherever they are listed (event-group, the store, the site from either).
    public static func sortKey(_ t: EventStore.Tracked) -> String {
        let e = t.event
        return [e.start ?? e.startLocal ?? "~", e.uid ?? "", e.recurrenceID ?? "", e.summary ?? "", t.messageIDs.first ?? ""]
            .joined(separator: "\u{0}")
    }

    static func json(_ t: EventStore.Tracked, occurrence: Occurrence?) -> [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        var e = t.event
        if let occurrence, !occurrence.complete { e.defects.append("expansion_limit_reached") }
        e.writeFields(&w)
        if let occurrence {
            w.field("occurrence_start", occurrence.start)
            w.field("occurrence_end", occurrence.end)
        }
        w.field("message_ids", strings: t.messageIDs)
        w.field("updated", t.updated)
        w.field("conversation_id", t.conversationID)
        w.endObject()
        return w.bytes
    }

    // MARK: occurrences

    struct Occurrence {
        var tracked: EventStore.Tracked
        var start: String?
        var end: String?
        var instant: Int
        var complete = true
    }

    /// Each event's occurrences that overlap the window, in order of their start. A changed
    /// occurrence (an event with RECURRENCE-ID) stands in for the one the series would have.
    func occurrences(of events: [EventStore.Tracked], in window: Range<Int>) -> [Occurrence] {
        var changed = Set<String>()
        for t in events where t.event.recurrenceID != nil { changed.insert((t.event.uid ?? "") + "\u{0}" + t.event.recurrenceID!) }
        var result: [Occurrence] = []
        for t in events {
            let e = t.event
            guard let start = Self.time(start: e) else { continue }
            let duration = Self.duration(of: e, start: start)
            let series = e.recurrenceID == nil ? e.recurrence : nil
            let expansion = ICalRecurrence.occurrences(
                start: start, rule: series?.rule, rdates: series?.rdates.compactMap(Self.time(text:)) ?? [],
                exdates: series?.exdates.compactMap(Self.time(text:)) ?? [], duration: duration, window: window,
                viewZone: zone, limit: expansionLimit)
            for (s, instant) in expansion.occurrences {
                let id = Self.text(s)
                if series != nil, changed.contains((e.uid ?? "") + "\u{0}" + id) { continue }
                result.append(Occurrence(tracked: t, start: id, end: Self.text(s, plus: duration), instant: instant,
                                         complete: expansion.complete))
            }
            if expansion.occurrences.isEmpty && !expansion.complete {
                // the rule was given up on before the window: say so once, with no occurrence
                result.append(Occurrence(tracked: t, start: nil, end: nil, instant: window.lowerBound, complete: false))
            }
        }
        return result.sorted { $0.instant != $1.instant ? $0.instant < $1.instant : Self.sortKey($0.tracked) < Self.sortKey($1.tracked) }
    }

    /// The start of an event as libical's time: a date, an instant, a wall clock in its zone, or
    /// a floating wall clock; nil for an event whose zone is unknown or that has no start.
    static func time(start e: Event) -> ICalTime? {
        if e.allDay { return e.start.flatMap { ICalTime.date($0) } }
        if let zone = e.timeZone, let local = e.startLocal { return ICalTime.local(local, zone: zone) }
        if let s = e.start { return time(text: s) }
        if let local = e.startLocal, !e.defects.contains("unknown_time_zone") { return ICalTime.local(local, zone: nil) }
        return nil
    }

    static func time(end e: Event) -> ICalTime? {
        if e.allDay { return e.end.flatMap { ICalTime.date($0) } }
        if let zone = e.timeZone, let local = e.endLocal { return ICalTime.local(local, zone: zone) }
        if let s = e.end { return time(text: s) }
        if let local = e.endLocal { return ICalTime.local(local, zone: nil) }
        return nil
    }

    /// A time as mailpipe(5) writes one: `…Z` an instant, `YYYY-MM-DD` a date, else floating.
    static func time(text: String) -> ICalTime? {
        if text.hasSuffix("Z") { return CivilDate.epoch(rfc3339: text).map(ICalTime.instant) }
        if text.utf8.count == 10 { return ICalTime.date(text) }
        return ICalTime.local(text, zone: nil)
    }

    static func text(_ t: ICalTime) -> String {
        if let utc = t.utc { return CivilDate.rfc3339(utc) }
        return t.localText
    }

    static func text(_ t: ICalTime, plus seconds: Int) -> String {
        if let utc = t.utc { return CivilDate.rfc3339(utc + seconds) }
        let days = CivilDate.days(year: t.year, month: t.month, day: t.day)
        if t.isDate { return CivilDate.dateText(days: days + seconds / 86400) }
        let local = days * 86400 + t.hour * 3600 + t.minute * 60 + t.second + seconds
        return String(CivilDate.rfc3339(local).dropLast())
    }

    /// How long each occurrence lasts: the event's end less its start (whole days for dates).
    static func duration(of e: Event, start: ICalTime) -> Int {
        guard let end = time(end: e) else { return start.isDate ? 86400 : 0 }
        if let a = start.utc, let b = end.utc { return max(0, b - a) }
        let days = CivilDate.days(year: end.year, month: end.month, day: end.day) - CivilDate.days(year: start.year, month: start.month, day: start.day)
        let clock = (end.hour - start.hour) * 3600 + (end.minute - start.minute) * 60 + (end.second - start.second)
        return max(0, days * 86400 + (start.isDate ? 0 : clock))
    }

    // MARK: iCalendar file

    func writeCalendar(_ events: [Event], to path: String, _ run: FilterRun) throws {
        let text = ICalendarWriter.calendar(events.map(Self.icalEvent), productID: "-//mailpipe//event-group//EN")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            run.diagnostics.error("cannot write: " + String(cString: strerror(errno)), file: path)
            throw Exit(.ioError)
        }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                run.diagnostics.error("cannot write: " + String(cString: strerror(errno)), file: path)
                throw Exit(.ioError)
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The calendar as an iCalendar file to subscribe to (METHOD:PUBLISH, RFC 5546), as a site
    /// serves it: every event, the cancelled ones with STATUS:CANCELLED, each with its UID
    /// (`uid` names one that has none: a booking's, one read from a text), its DTSTAMP (the
    /// event's, else the date of the mail that set it as it is) and its SEQUENCE; attendees are
    /// left out, as PUBLISH has none. The same calendar makes the same bytes.
    public static func publishedCalendar(_ calendar: [EventStore.Tracked], productID: String,
                                         uid: (EventStore.Tracked) -> String) -> String {
        let events = calendar.sorted { sortKey($0) < sortKey($1) }.map { t in
            var v = icalEvent(t.event)
            if v.uid == nil { v.uid = uid(t) }
            if v.dtstamp == nil { v.dtstamp = t.updated.flatMap(time(text:)) ?? v.start.flatMap { $0.utc.map(ICalTime.instant) } ?? ICalTime.instant(0) }
            v.attendees = []
            return v
        }
        return ICalendarWriter.calendar(events, productID: productID, method: "PUBLISH")
    }

    /// The event as the VEVENT that says it: its times in its zone, cancelled ones with
    /// STATUS:CANCELLED. An event whose zone is unknown keeps its wall clock, floating.
    static func icalEvent(_ e: Event) -> ICalEvent {
        var v = ICalEvent()
        v.uid = e.uid
        v.recurrenceID = e.recurrenceID.flatMap(time(text:))
        v.sequence = e.sequence
        v.dtstamp = e.dtstamp.flatMap(time(text:))
        v.status = e.status
        v.start = time(start: e) ?? e.startLocal.flatMap { ICalTime.local($0, zone: nil) }
        v.end = time(end: e)
        if let r = e.recurrence {
            v.rules = r.rule.map { [$0] } ?? []
            v.rdates = r.rdates.compactMap(time(text:))
            v.exdates = r.exdates.compactMap(time(text:))
        }
        for (name, value) in [("SUMMARY", e.summary), ("DESCRIPTION", e.description), ("LOCATION", e.location), ("URL", e.url)] {
            if let value { v.properties.append((name, value)) }
        }
        v.organizer = e.organizer.map { ICalPerson(address: $0.address, name: $0.name) }
        v.attendees = e.attendees.map { ICalPerson(address: $0.address, name: $0.name, role: $0.role, status: $0.status, rsvp: $0.rsvp) }
        return v
    }
}

// MARK: dates on the command line

extension EventGroup {
    public static func isKnownZone(_ id: String) -> Bool { ICalendarReader.isKnownZone(id) }

    /// The instant a date (its midnight), a wall-clock time in `zone`, or an RFC 3339 time is.
    public static func instant(_ text: String, zone: String) -> Int? {
        if text.hasSuffix("Z") { return CivilDate.epoch(rfc3339: text) }
        let t = text.utf8.count == 10 ? ICalTime.date(text) : ICalTime.local(text, zone: nil)
        return t?.epoch(readingLocalIn: zone)
    }

    /// The day `date` in `zone`, midnight to midnight (23 or 25 hours on the days clocks change).
    public static func day(_ date: String, zone: String) -> Range<Int>? {
        guard let days = CivilDate.days(dateText: date), let start = instant(date, zone: zone),
              let end = instant(CivilDate.dateText(days: days + 1), zone: zone) else { return nil }
        return start..<end
    }

    /// Today's date in `zone`.
    public static func today(zone: String) -> String {
        let t = ICalTime.local(epoch: Int(Glibc.time(nil)), zone: zone)!
        return String(t.localText.prefix(10))
    }

    /// today, tomorrow (in `zone`) or a date, as YYYY-MM-DD; nil for anything else.
    public static func agendaDay(_ text: String, zone: String) -> String? {
        switch text {
        case "today": return today(zone: zone)
        case "tomorrow": return tomorrow(zone: zone)
        default: return text.utf8.count == 10 && day(text, zone: zone) != nil ? text : nil
        }
    }

    /// Tomorrow's date in `zone`.
    public static func tomorrow(zone: String) -> String {
        CivilDate.dateText(days: CivilDate.days(dateText: today(zone: zone))! + 1)
    }

    /// The machine's zone: TZ (an IANA id, with or without its leading colon), else the zone
    /// /etc/localtime links to, else UTC.
    public static func systemZone() -> String {
        if let tz = getenv("TZ").map({ String(cString: $0) }) {
            let id = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if isKnownZone(id) { return id }
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let r = target.firstRange(of: "zoneinfo/") {
                let id = String(target[r.upperBound...])
                if isKnownZone(id) { return id }
            }
        }
        return "UTC"
    }
}

extension EventGroup {
    /// When an event's first occurrence ends, in seconds since the epoch (all-day and floating
    /// events read in UTC).
    public static func end(of e: Event) -> Int? {
        guard let start = time(start: e), let s = start.epoch(readingLocalIn: "UTC") else { return nil }
        return s + duration(of: e, start: start)
    }

    /// Whether an event is not over at `now`: its end is not before it (a series: it starts
    /// later, or has an occurrence in the four years after `now`, long enough for a birthday on
    /// 29 February). All-day and floating events are read in UTC.
    public static func isUpcoming(_ e: Event, now: Int) -> Bool {
        if let end = end(of: e), end >= now { return true }
        guard e.recurrence != nil, e.recurrenceID == nil else { return false }
        var group = EventGroup()
        group.expansionLimit = 100_000
        return group.occurrences(of: [EventStore.Tracked(event: e)], in: now..<(now + 1461 * 86400)).contains(where: \.complete)
    }

    /// The instant before which `isUpcoming(e, now: t)` is, for every `t` from `now`, what it
    /// is at `now`: when a page that splits the events into upcoming and past is due again.
    /// Int.max: never; `now`: not known (a series whose expansion was given up on).
    public static func upcomingUntil(_ e: Event, now: Int) -> Int {
        let ends = end(of: e)
        var until = ends.map { $0 >= now ? $0 + 1 : Int.max } ?? Int.max
        guard e.recurrence != nil, e.recurrenceID == nil, let start = time(start: e) else { return until }
        var group = EventGroup()
        group.expansionLimit = 100_000
        let years = 1461 * 86400  // isUpcoming's window
        func complete(_ window: Range<Int>) -> [Occurrence]? {
            let found = group.occurrences(of: [EventStore.Tracked(event: e)], in: window)
            return found.allSatisfy(\.complete) ? found : nil
        }
        guard let within = complete(now..<(now + years)) else { return now }
        if let next = within.first {
            // upcoming while its next occurrence overlaps the window, as long as the windows up to
            // then are expanded whole (the steps a window takes grow with its end)
            let over = next.instant + max(duration(of: e, start: start), 1)
            guard complete(now..<(over + years)) != nil else { return now }
            return min(until, over)
        }
        // past until an occurrence comes within the window
        guard let later = complete((now + years)..<(now + 2 * years)) else { return now }
        return min(until, later.first.map { $0.instant - years + 1 } ?? now + years + 1)
    }
}
