import BodyText
import CivilTime
import CLibcExtras
import ICalendar
import JSONLines
import StructuredData
import UnixFilter
import UTF8Text

/// event-extract's run: each record gets `events` (see mailpipe(5)).
public struct EventExtract {
    /// The IANA zone floating times are read in, when the calendar names none.
    public var floatingZone: String?
    /// Text confirmations below this confidence are left out.
    public var minimumConfidence = 0.6
    /// Appointment-word files (or folders of them) named on the command line, read after the user's.
    public var wordFiles: [String] = []
    /// Reply-pattern files, as text-extract's --patterns: where a message's new text ends.
    public var patternFiles: [String] = []

    public init() {}

    struct NotAMessage: Error, CustomStringConvertible {
        var description: String { "no calendar, subject, text or html: not a mime-parse record" }
    }

    public func run(_ run: FilterRun) throws {
        let words = try DataFiles.extend(AppointmentWords.builtIn, user: ["appointment-words.json", "appointment-words"],
                                         extra: wordFiles, diagnostics: run.diagnostics)
        var patterns = TextExtract()
        patterns.patternFiles = patternFiles
        let reader = TextReader(words: words, patterns: try patterns.loadPatterns(run.diagnostics))
        try filterRecords(run, progressNoun: "messages") { record in
            let (calendarEvents, unreadable) = try events(in: record)
            let markup = SchemaOrg.markup(of: record)
            var events = calendarEvents + SchemaOrgEvents.events(markup.items, floatingZone: floatingZone)
            if events.isEmpty { events = textEvents(in: record, reader) }
            var updates: [(key: String, value: [UInt8]?)] = [("events", Self.json(events)), ("schema_org", Self.json(markup.items))]
            var defects = markup.defects
            if unreadable > 0 { defects.append("unreadable_calendar") }
            if !defects.isEmpty { updates.append(("defects", Self.defects(record, adding: defects))) }
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

    /// The text confirmations of a message without a calendar or markup: read from its new
    /// text only (`reply_text` when text-extract has run, else cut here as text-extract cuts it).
    func textEvents(in record: JSONRecord, _ reader: TextReader) -> [Event] {
        // after text-extract its reply_text only (null when the mail holds nothing new), else
        // the text, or the HTML of a message that has only HTML
        let afterTextExtract = record.member("reply_text") != nil
        let raw = (afterTextExtract ? ["reply_text"] : ["text", "html"]).lazy
            .compactMap { record.rawValue($0) }.first { $0.first == UInt8(ascii: "\"") }
        guard let raw, reader.mayHoldAppointment(raw) else { return [] }
        // a list's post or a newsletter is nobody's own appointment (this also spares the
        // rendering of most HTML-only mail, which is bulk mail)
        let headers = record.value("headers")
        guard headers?["list-id"] == nil, headers?["list-unsubscribe"] == nil else { return [] }
        let newText: [UInt8]?
        if afterTextExtract {
            newText = record.stringBytes("reply_text")
        } else {
            newText = reader.extractor.newText(text: record.stringBytes("text"), format: record.string("text_format"),
                                               html: record.stringBytes("html"))
        }
        guard let newText, let date = record.string("date"), let sent = CivilDate.days(dateText: date) else { return [] }
        let subject = record.string("subject")?.trimmingWhitespace
        let from = record.value("from")
        return reader.appointments.find(in: String(decoding: newText, as: UTF8.self), sent: sent)
            .filter { $0.confidence >= minimumConfidence - 1e-9 }
            .map { found in
                var e = Event(source: "text", kind: "appointment", confidence: found.confidence, evidence: found.evidence)
                // who the appointment is with: the sender (a clinic, a salon), else the subject
                let name = from?["name"]?.stringValue?.trimmingWhitespace
                e.summary = name.flatMap { $0.isEmpty ? nil : $0 } ?? subject.flatMap { $0.isEmpty ? nil : $0 } ?? found.line
                e.description = found.line
                e.startLocal = found.startLocal
                e.endLocal = found.startLocal
                if let floatingZone, let t = ICalTime.local(found.startLocal, zone: floatingZone), let utc = t.utc {
                    e.timeZone = floatingZone
                    e.start = CivilDate.rfc3339(utc)
                    e.end = e.start
                }
                if let address = from?["address"]?.stringValue {
                    e.organizer = Event.Person(name: from?["name"]?.stringValue, address: address)
                }
                return e
            }
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

/// What reading text confirmations needs, made once per run.
final class TextReader {
    let appointments: TextAppointments
    let extractor: Extractor
    private let bookingBytes: [[UInt8]]
    private let monthBytes: [[UInt8]]

    init(words: AppointmentWords, patterns: ReplyPatterns) {
        appointments = TextAppointments(words: words)
        extractor = Extractor(patterns: patterns)
        bookingBytes = words.bookingBytes
        monthBytes = words.monthBytes
    }

    /// A look at the bytes as written before anything is decoded: a time and a booking word
    /// near it. Nearly all mail fails it.
    func mayHoldAppointment(_ raw: ArraySlice<UInt8>) -> Bool {
        let times = Self.positions(in: raw, where: Self.mayStartTime)
        guard !times.isEmpty else { return false }
        // a booking word and a date within a few lines of a time ("I booked a table for 5pm on
        // Friday" and quoted headers' "at 10:30" are common; they have no date)
        let lowered = ASCII.lowercased(raw)
        func near(_ words: [[UInt8]]) -> Bool { Self.occurs(words, in: lowered, near: times, base: raw.startIndex) }
        guard near(bookingBytes) else { return false }
        let numericDates = Self.positions(in: raw, where: Self.mayStartNumericDate)
        return numericDates.contains { d in times.contains { abs($0 - d) < Self.near } } || near(monthBytes)
    }

    static let near = 400

    /// Whether one of `words` occurs in `hay` within `near` bytes of one of `positions`.
    static func occurs(_ words: [[UInt8]], in hay: [UInt8], near positions: [Int], base: Int) -> Bool {
        hay.withUnsafeBufferPointer { hay in
            words.contains { word in
                var from = 0
                while from < hay.count, let p = mp_memmem(hay.baseAddress! + from, hay.count - from, word, word.count) {
                    let at = base + hay.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    if positions.contains(where: { abs($0 - at) < near }) { return true }
                    from = at - base + 1
                }
                return false
            }
        }
    }

    /// The places where `test` holds; at most a few hundred.
    static func positions(in b: ArraySlice<UInt8>, where test: (ArraySlice<UInt8>, Int) -> Bool) -> [Int] {
        var found: [Int] = []
        var i = b.startIndex
        while i < b.endIndex, found.count < 500 {
            if test(b, i) { found.append(i) }
            i += 1
        }
        return found
    }

    /// A date written in digits may go on here: `3/12`, `14.03.`, `2026-03-12`, `3月`.
    private static func mayStartNumericDate(_ b: ArraySlice<UInt8>, _ i: Int) -> Bool {
        func digit(_ k: Int) -> Bool { k >= b.startIndex && k < b.endIndex && b[k] &- 0x30 < 10 }
        guard digit(i - 1) else { return false }
        switch b[i] {
        case UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"): return digit(i + 1)
        case 0xE6: return i + 2 < b.endIndex && b[i + 1] == 0x9C && b[i + 2] == 0x88  // 月
        default: return false
        }
    }

    /// A time may be written here (`10:30`, `15h`, `3時`, `10 am`, `14 Uhr`…): after its first digits.
    private static let timeMarkers = ["am", "a.m", "pm", "p.m", "uhr"].map { Array($0.utf8) }

    private static func mayStartTime(_ b: ArraySlice<UInt8>, _ i: Int) -> Bool {
        func digit(_ k: Int) -> Bool { k >= b.startIndex && k < b.endIndex && b[k] &- 0x30 < 10 }
        guard digit(i - 1) else { return false }
        let c = b[i]
        switch c {
        case UInt8(ascii: ":"): return digit(i + 1)
        case UInt8(ascii: "h"), UInt8(ascii: "H"): return true
        case 0xE6 where i + 2 < b.endIndex && b[i + 1] == 0x99 && b[i + 2] == 0x82: return true  // 時
        case 0xE6 where i + 2 < b.endIndex && b[i + 1] == 0x97 && b[i + 2] == 0xB6: return true  // 时
        case 0xE7 where i + 2 < b.endIndex && b[i + 1] == 0x82 && b[i + 2] == 0xB9: return true  // 点
        case 0xE9 where i + 2 < b.endIndex && b[i + 1] == 0xBB && b[i + 2] == 0x9E: return true  // 點
        case UInt8(ascii: " "), UInt8(ascii: "a"), UInt8(ascii: "p"), UInt8(ascii: "u"), UInt8(ascii: "A"), UInt8(ascii: "P"), UInt8(ascii: "U"):
            let k = c == UInt8(ascii: " ") ? i + 1 : i
            return timeMarkers.contains { marker in
                marker.count <= b.endIndex - k && zip(b[k...], marker).allSatisfy { $0 | 0x20 == $1 }
            }
        default: return false
        }
    }
}
