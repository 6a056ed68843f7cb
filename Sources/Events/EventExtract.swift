import BodyText
import CivilTime
import CLibcExtras
import ICalendar
import JSONLines
import StructuredData
import UnixFilter
import UTF8Text

/// Set once a calendar of more than a megabyte comes: libical's tree of 50,000 events is freed
/// 10% faster without fast bins, while ordinary mail is 5% slower without them.
private let noFastBins: Void = mp_no_fast_bins()

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
        try stage(run.diagnostics).run(run)
    }

    /// The stage; `extractor` is text-extract's when a chain has made it already (its reply
    /// patterns are compiled once).
    public func stage(_ diagnostics: Diagnostics, extractor: Extractor? = nil) throws -> RecordStage {
        let words = try DataFiles.extend(AppointmentWords.builtIn, user: ["appointment-words.json", "appointment-words"],
                                         extra: wordFiles, diagnostics: diagnostics)
        var patterns = TextExtract()
        patterns.patternFiles = patternFiles
        let reader = TextReader(words: words, extractor: try extractor ?? Extractor(patterns: patterns.loadPatterns(diagnostics)))
        let prescriptions = Prescriptions(words: try DataFiles.extend(PrescriptionWords.builtIn, user: ["prescription-words.json", "prescription-words"],
                                                                    extra: [], diagnostics: diagnostics))
        return RecordStage(name: "event-extract") { record in
            let (calendarEvents, unreadable) = try events(in: record)
            let markup = SchemaOrg.markup(of: record)
            var events = calendarEvents + SchemaOrgEvents.events(markup.items, floatingZone: floatingZone)
            var unreadDates: [String] = []
            if events.isEmpty { (events, unreadDates) = textEvents(in: record, reader, prescriptions) }
            var updates: [(key: String, value: [UInt8]?)] = [("events", Self.json(events)), ("schema_org", Self.json(markup.items))]
            // written only when there is one (and a stale one from an earlier run goes)
            if !unreadDates.isEmpty || record.member("unread_dates") != nil {
                updates.append(("unread_dates", unreadDates.isEmpty ? nil : Self.unreadDates(unreadDates)))
            }
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
        // the same invitation often comes twice: as the text/calendar body and as invite.ics;
        // events are compared whole only where uid, occurrence and sequence are the same
        var seen: [EventKey: [Int]] = [:]
        var unreadable = 0
        for (k, part) in parts.enumerated() {
            guard let text = part.stringValue else { continue }
            if text.utf8.count > 1 << 20 { _ = noFastBins }
            let method = k < methods.count ? methods[k].stringValue : nil
            if let found = CalendarEvents.events(in: text, contentMethod: method, floatingZone: floatingZone) {
                for e in found {
                    let key = EventKey(uid: e.uid, recurrenceID: e.recurrenceID, sequence: e.sequence)
                    guard !(seen[key]?.contains { events[$0] == e } ?? false) else { continue }
                    seen[key, default: []].append(events.count)
                    events.append(e)
                }
            } else {
                unreadable += 1
            }
        }
        return (events, unreadable)
    }

    /// The text confirmations of a message without a calendar or markup: read from its new
    /// text only (`reply_text` when text-extract has run, else cut here as text-extract cuts it),
    /// else from the message it forwards, attributed to that message's sender; and the dates
    /// written in digits that would have made one but could be read day or month first.
    func textEvents(in record: JSONRecord, _ reader: TextReader, _ prescriptions: Prescriptions) -> (events: [Event], unreadDates: [String]) {
        // a list's post or a newsletter is nobody's own appointment; asked first, since bulk
        // mail is most of the long text there is (two thirds of the generated mailbox's). A
        // booking system adds List-Unsubscribe to its reminders too: a subject about one
        // patient's appointment or prescription is read all the same.
        guard !record.object("headers", hasMemberNamed: "list-id", "list-unsubscribe")
                || prescriptions.isCareSubject(record.string("subject")) else { return ([], []) }
        // the look at the text as written, asked once for both readings
        var writtenMayHold: Bool?
        func textMayHold() -> Bool {
            if writtenMayHold == nil {
                let written = ["text", "html"].lazy.compactMap { record.rawValue($0) }.first { $0.first == UInt8(ascii: "\"") }
                writtenMayHold = written.map(reader.mayHoldAppointment) ?? false
            }
            return writtenMayHold!
        }
        let own = ownTextEvents(in: record, reader, textMayHold: textMayHold)
        let prescribed = prescriptionEvents(in: record, reader, prescriptions)
        guard own.events.isEmpty else { return (own.events + prescribed, own.unreadDates) }
        let forwarded = forwardedEvents(in: record, reader, textMayHold: textMayHold)
        return (forwarded.events + prescribed, own.unreadDates + forwarded.unreadDates.filter { !own.unreadDates.contains($0) })
    }

    /// A prescription notice in the new text, as a reminder on the calendar for the day to
    /// collect or reorder by (see Prescriptions).
    private func prescriptionEvents(in record: JSONRecord, _ reader: TextReader, _ prescriptions: Prescriptions) -> [Event] {
        let afterTextExtract = record.member("reply_text") != nil
        let written = afterTextExtract ? record.rawValue("reply_text")
            : ["text", "html"].lazy.compactMap { record.rawValue($0) }.first { $0.first == UInt8(ascii: "\"") }
        let subject = record.string("subject")
        guard let written, written.first == UInt8(ascii: "\""),
              prescriptions.mayHold(written) || prescriptions.mayHold(Array((subject ?? "").utf8)[...]) else { return [] }
        let newText = afterTextExtract ? record.stringBytes("reply_text")
            : reader.extractor.newText(text: record.stringBytes("text"), format: record.string("text_format"), html: record.stringBytes("html"))
        guard let newText, let date = record.string("date"), let sent = CivilDate.days(dateText: date) else { return [] }
        let from = record.value("from")
        guard let found = prescriptions.find(in: String(decoding: newText, as: UTF8.self), subject: subject,
                                             sender: from?["name"]?.stringValue, sent: sent, dates: reader.appointments) else { return [] }
        var e = Event(source: "text", kind: "prescription", confidence: found.confidence, evidence: found.evidence)
        e.prescription = found.prescription
        e.summary = found.prescription == "collect" ? "Collect prescription" : "Reorder prescription"
        e.description = found.line
        e.location = found.location
        e.allDay = true
        e.start = CivilDate.dateText(days: found.day)
        e.end = CivilDate.dateText(days: found.day + 1)
        e.startLocal = e.start
        e.endLocal = e.end
        e.organizer = from?["address"]?.stringValue.map { Event.Person(name: from?["name"]?.stringValue, address: $0) }
        return e.confidence >= minimumConfidence - 1e-9 ? [e] : []
    }

    private func ownTextEvents(in record: JSONRecord, _ reader: TextReader, textMayHold: () -> Bool) -> (events: [Event], unreadDates: [String]) {
        // after text-extract its reply_text only (null when the mail holds nothing new), else
        // the text, or the HTML of a message that has only HTML
        let afterTextExtract = record.member("reply_text") != nil
        if afterTextExtract {
            guard let raw = record.rawValue("reply_text"), raw.first == UInt8(ascii: "\""), reader.mayHoldAppointment(raw) else { return ([], []) }
        } else {
            guard textMayHold() else { return ([], []) }
        }
        let newText: [UInt8]?
        if afterTextExtract {
            newText = record.stringBytes("reply_text")
        } else {
            // the look again, on the new text alone: the date and time of most replies that pass
            // it are in their quoted headers ("On Mon, Jun 7, 2015 at 9:14 AM … wrote:")
            newText = reader.extractor.newText(text: record.stringBytes("text"), format: record.string("text_format"),
                                               html: record.stringBytes("html"))
                .flatMap { reader.mayHoldAppointment($0[...]) ? $0 : nil }
        }
        guard let newText, let date = record.string("date"), let sent = CivilDate.days(dateText: date) else { return ([], []) }
        let from = record.value("from")
        let sender = from?["address"]?.stringValue.map { Event.Person(name: from?["name"]?.stringValue, address: $0) }
        // what the headers and the sender say of 08/04/2026, in that order (see DayMonthOrder)
        let senderOrder = { () -> DayMonthOrder? in
            let language = record.value("headers")?["content-language"]?.arrayValue?.first?.stringValue
            return language.flatMap(reader.appointments.words.order(contentLanguage:)) ?? sender.flatMap { reader.appointments.words.order(senderAddress: $0.address) }
        }
        return appointments(in: newText, sent: sent, sender: sender, senderName: from?["name"]?.stringValue,
                            subject: record.string("subject"), forwarded: false, senderOrder: senderOrder, reader)
    }

    /// The confirmations in the message a mail forwards (text-extract's `forwarded_message`, or
    /// read here as it reads it when event-extract runs first), with the date it was sent.
    private func forwardedEvents(in record: JSONRecord, _ reader: TextReader, textMayHold: () -> Bool) -> (events: [Event], unreadDates: [String]) {
        // the bytes as written first: an inline forward is in the text, an attached one in the
        // attachments' `message`
        let attachments = record.rawValue("attachments")
        let attachedMayHold = { () -> Bool in
            guard let attachments, attachments.count > 2,
                  attachments.withUnsafeBufferPointer({ ByteSearch.contains($0, Self.messageType) }) else { return false }
            return reader.mayHoldAppointment(attachments)
        }
        guard textMayHold() || attachedMayHold() else { return ([], []) }
        let forwarded: ForwardedMessage?
        if let stored = record.value("forwarded_message"), case .object = stored {
            forwarded = ForwardedMessage(json: stored)
        } else if record.member("forwarded_message") != nil {
            forwarded = nil  // text-extract found none
        } else {
            forwarded = reader.extractor.forwardedMessage(in: record)
        }
        let text = Array((forwarded?.text ?? "").utf8)
        guard let forwarded, reader.mayHoldAppointment(text[...]),
              let sent = (forwarded.date ?? record.string("date")).flatMap({ CivilDate.days(dateText: $0) }) else { return ([], []) }
        let sender = forwarded.from?.address.map { Event.Person(name: forwarded.from?.name, address: $0) }
        // the forwarding mail's Content-Language is the forwarder's: only the original sender's domain counts
        return appointments(in: text, sent: sent, sender: sender, senderName: forwarded.from?.name,
                            subject: forwarded.subject, forwarded: true,
                            senderOrder: { sender.flatMap { reader.appointments.words.order(senderAddress: $0.address) } }, reader)
    }

    private func appointments(in text: [UInt8], sent: Int, sender: Event.Person?, senderName: String?, subject: String?,
                              forwarded: Bool, senderOrder: () -> DayMonthOrder?, _ reader: TextReader) -> (events: [Event], unreadDates: [String]) {
        let subject = subject?.trimmingWhitespace
        let reading = reader.appointments.read(String(decoding: text, as: UTF8.self), sent: sent, senderOrder: senderOrder)
        let unread = reading.unread.filter { $0.confidence >= minimumConfidence - 1e-9 }.map(\.text)
        let events = reading.found
            .filter { $0.confidence >= minimumConfidence - 1e-9 }
            .map { found in
                var e = Event(source: "text", kind: "appointment", confidence: found.confidence, evidence: found.evidence)
                // who the appointment is with: the sender (a clinic, a salon), else the subject
                let name = senderName?.trimmingWhitespace
                e.summary = name.flatMap { $0.isEmpty ? nil : $0 } ?? subject.flatMap { $0.isEmpty ? nil : $0 } ?? found.line
                e.description = found.line
                e.startLocal = found.startLocal
                e.endLocal = found.startLocal
                if let floatingZone, let t = ICalTime.local(found.startLocal, zone: floatingZone), let utc = t.utc {
                    e.timeZone = floatingZone
                    e.start = CivilDate.rfc3339(utc)
                    e.end = e.start
                }
                e.organizer = sender
                if forwarded { e.forwardedFrom = sender }
                return e
            }
        return (events, unread)
    }

    /// `unread_dates` (mailpipe(5)): each date as written, with why it was not read.
    static func unreadDates(_ texts: [String]) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginArray()
        for text in texts {
            w.beginObject()
            w.key("text")
            w.string(text)
            w.key("reason")
            w.string("ambiguous_day_month")
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    private static let messageType = Array("message/".utf8)

    private struct EventKey: Hashable {
        var uid: String?, recurrenceID: String?, sequence: Int
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
