internal import CLibical
#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import Synchronization
import UnicodeServices

/// A DATE or DATE-TIME value as the calendar wrote it, and the instant it means where its zone
/// says which.
public struct ICalTime: Equatable, Sendable {
    public enum Kind: Sendable { case date, utc, zoned, floating, unknownZone }
    public var kind: Kind
    public var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
    /// Seconds since 1970-01-01T00:00:00Z; nil for dates, floating times and unknown zones.
    public var utc: Int?
    /// The TZID parameter as written.
    public var tzid: String?
    /// The IANA id of the zone, when there is one (a VTIMEZONE with a private name has none).
    public var zone: String?

    public var isDate: Bool { kind == .date }

    /// `YYYY-MM-DD` for a date, `YYYY-MM-DDTHH:MM:SS` (wall clock) otherwise.
    public var localText: String {
        let date = CivilDate.dateText(days: CivilDate.days(year: year, month: month, day: day))
        return isDate ? date : date + "T" + CivilDate.clockText(seconds: hour * 3600 + minute * 60 + second)
    }
}

/// A calendar user: ORGANIZER or ATTENDEE.
public struct ICalPerson: Equatable, Sendable {
    public var address: String
    public var name: String?
    public var role: String?
    public var status: String?
    public var rsvp: Bool?

    public init(address: String, name: String? = nil, role: String? = nil, status: String? = nil, rsvp: Bool? = nil) {
        self.address = address
        self.name = name
        self.role = role
        self.status = status
        self.rsvp = rsvp
    }
}

/// One VEVENT, its properties read but not interpreted.
public struct ICalEvent: Sendable {
    public var uid: String?
    public var recurrenceID: ICalTime?
    public var sequence: Int?
    public var dtstamp: ICalTime?
    public var status: String?
    public var start: ICalTime?
    /// DTEND as written, or DTSTART plus DURATION (added on the wall clock, as RFC 5545 says).
    public var end: ICalTime?
    /// The end's wall clock in the start's zone (the end itself when both share a TZID).
    public var endInStartZone: ICalTime?
    public var rules: [String] = []
    public var rdates: [ICalTime] = []
    public var exdates: [ICalTime] = []
    public var organizer: ICalPerson?
    public var attendees: [ICalPerson] = []
    /// Every other property with a text value, by uppercase name, in order.
    public var properties: [(name: String, value: String)] = []
    /// What libical could not read in the event (its X-LIC-ERROR texts).
    public var errors: [String] = []

    public init() {}

    public func property(_ name: String) -> String? { properties.first { $0.name == name }?.value }
}

/// One VCALENDAR.
public struct ICalCalendar: Sendable {
    /// The error of a calendar that ends before its END:VCALENDAR.
    public static let missingEnd = "missing END:VCALENDAR"
    public var method: String?
    public var events: [ICalEvent] = []
    public var errors: [String] = []
}

/// Reads iCalendar text with libical.
public enum ICalendarReader {
    /// Every VCALENDAR in `text` (a bare VEVENT counts as a calendar of one). Floating times are
    /// read in the calendar's X-WR-TIMEZONE, else in `floatingZone` (an IANA id), else left
    /// floating.
    public static func read(_ text: String, floatingZone: String? = nil) -> [ICalCalendar] {
        LibICal.setUp
        var root = LibICal.quietly { text.withCString { icalparser_parse_string($0) } }
        if root == nil, text.contains("BEGIN:VCALENDAR"), !text.contains("END:VCALENDAR") {
            // cut off (a truncated mail, a sender that never closes it): read what came
            var calendars = read(text + "\r\nEND:VCALENDAR\r\n", floatingZone: floatingZone)
            for k in calendars.indices { calendars[k].errors.append(ICalCalendar.missingEnd) }
            return calendars
        }
        guard let root else { return [] }
        defer { icalcomponent_free(root) }
        switch icalcomponent_isa(root) {
        case ICAL_XROOT_COMPONENT:
            var calendars: [ICalCalendar] = []
            var c = icalcomponent_get_first_component(root, ICAL_ANY_COMPONENT)
            while let component = c {
                if icalcomponent_isa(component) == ICAL_VCALENDAR_COMPONENT {
                    calendars.append(calendar(component, floatingZone: floatingZone))
                } else if icalcomponent_isa(component) == ICAL_VEVENT_COMPONENT {
                    calendars.append(ICalCalendar(events: [event(component, zones: CalendarZones(nil, floatingZone: floatingZone))]))
                } else {
                    var wrapped = ICalCalendar()
                    collectEvents(in: component, zones: CalendarZones(component, floatingZone: floatingZone), into: &wrapped.events)
                    if !wrapped.events.isEmpty { calendars.append(wrapped) }
                }
                c = icalcomponent_get_next_component(root, ICAL_ANY_COMPONENT)
            }
            return calendars
        case ICAL_VCALENDAR_COMPONENT:
            return [calendar(root, floatingZone: floatingZone)]
        case ICAL_VEVENT_COMPONENT:
            return [ICalCalendar(events: [event(root, zones: CalendarZones(nil, floatingZone: floatingZone))])]
        case ICAL_NO_COMPONENT:
            return []
        default:
            var wrapped = ICalCalendar()
            collectEvents(in: root, zones: CalendarZones(root, floatingZone: floatingZone), into: &wrapped.events)
            return [wrapped]
        }
    }

    private static func calendar(_ c: OpaquePointer, floatingZone: String?) -> ICalCalendar {
        var calendar = ICalCalendar()
        var zone = floatingZone
        var p = icalcomponent_get_first_property(c, ICAL_ANY_PROPERTY)
        while let property = p {
            let name = propertyName(property)
            if name == "METHOD" { calendar.method = valueText(property)?.uppercased() }
            if name == "X-WR-TIMEZONE", let written = valueText(property), let iana = TimeZoneIDs.iana(written) { zone = iana }
            if name == "X-LIC-ERROR", let e = valueText(property) { calendar.errors.append(e) }
            p = icalcomponent_get_next_property(c, ICAL_ANY_PROPERTY)
        }
        collectEvents(in: c, zones: CalendarZones(c, floatingZone: zone), into: &calendar.events)
        return calendar
    }

    /// The VEVENTs below `c`, also those a sender wrapped in another VCALENDAR or in a
    /// component of its own (X-…), as Python's icalendar finds them; no deeper than real
    /// calendars nest (a hostile file nests thousands deep).
    private static func collectEvents(in c: OpaquePointer, zones: CalendarZones, into events: inout [ICalEvent], depth: Int = 0) {
        guard depth < 8 else { return }
        var child = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT)
        while let component = child {
            switch icalcomponent_isa(component) {
            case ICAL_VEVENT_COMPONENT: events.append(event(component, zones: zones))
            case ICAL_VTIMEZONE_COMPONENT, ICAL_VTODO_COMPONENT, ICAL_VJOURNAL_COMPONENT, ICAL_VFREEBUSY_COMPONENT: break
            default: collectEvents(in: component, zones: zones, into: &events, depth: depth + 1)
            }
            child = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT)
        }
    }

    private static func event(_ e: OpaquePointer, zones: CalendarZones) -> ICalEvent {
        var event = ICalEvent()
        var duration: icaldurationtype?
        var p = icalcomponent_get_first_property(e, ICAL_ANY_PROPERTY)
        func time(_ t: icaltimetype, _ property: OpaquePointer) -> ICalTime? {
            // a value libical could not read is a null time (and an X-LIC-ERROR beside it)
            guard icaltime_is_null_time(t) == 0 else { return nil }
            return readTime(t, tzid: parameter(property, ICAL_TZID_PARAMETER), zones: zones)
        }
        while let property = p {
            defer { p = icalcomponent_get_next_property(e, ICAL_ANY_PROPERTY) }
            switch icalproperty_isa(property) {
            case ICAL_UID_PROPERTY: event.uid = valueText(property)
            case ICAL_SEQUENCE_PROPERTY: event.sequence = Int(icalproperty_get_sequence(property))
            case ICAL_DTSTAMP_PROPERTY: event.dtstamp = time(icalproperty_get_dtstamp(property), property)
            case ICAL_DTSTART_PROPERTY: event.start = time(icalproperty_get_dtstart(property), property)
            case ICAL_DTEND_PROPERTY: event.end = time(icalproperty_get_dtend(property), property)
            case ICAL_RECURRENCEID_PROPERTY: event.recurrenceID = time(icalproperty_get_recurrenceid(property), property)
            case ICAL_DURATION_PROPERTY: duration = icalproperty_get_duration(property)
            case ICAL_STATUS_PROPERTY: event.status = valueText(property)?.uppercased()
            case ICAL_RRULE_PROPERTY: if let r = valueText(property) { event.rules.append(r) }
            case ICAL_RDATE_PROPERTY:
                let d = icalproperty_get_rdate(property)
                if let t = time(icaltime_is_null_time(d.time) != 0 ? d.period.start : d.time, property) { event.rdates.append(t) }
            case ICAL_EXDATE_PROPERTY: if let t = time(icalproperty_get_exdate(property), property) { event.exdates.append(t) }
            case ICAL_ORGANIZER_PROPERTY: event.organizer = person(property)
            case ICAL_ATTENDEE_PROPERTY: if let a = person(property) { event.attendees.append(a) }
            case ICAL_XLICERROR_PROPERTY: if let t = valueText(property) { event.errors.append(t) }
            default:
                if let v = valueText(property) { event.properties.append((propertyName(property), v)) }
            }
        }
        if event.end == nil, let duration, let start = event.start {
            var end = icalTime(start)
            WallClock(end).adding(duration).store(into: &end)
            event.end = readTime(end, tzid: start.tzid, zones: zones)
        }
        if let start = event.start, let end = event.end {
            event.endInStartZone = end
            if end.tzid != start.tzid || end.kind != start.kind, let utc = end.utc, start.utc != nil {
                let zone = start.kind == .utc ? icaltimezone_get_utc_timezone() : zones.zone(start.tzid)
                if let zone {
                    var local = readTime(icaltime_from_timet_with_zone(time_t(utc), 0, zone), tzid: nil, zones: CalendarZones(nil, floatingZone: nil))
                    local.kind = start.kind
                    event.endInStartZone = local
                }
            }
        }
        return event
    }

    private static func person(_ p: OpaquePointer) -> ICalPerson? {
        guard var address = valueText(p) else { return nil }
        if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
        let rsvp = parameter(p, ICAL_RSVP_PARAMETER).map { $0.uppercased() == "TRUE" }
        return ICalPerson(address: address, name: parameter(p, ICAL_CN_PARAMETER),
                          role: parameter(p, ICAL_ROLE_PARAMETER)?.uppercased(),
                          status: parameter(p, ICAL_PARTSTAT_PARAMETER)?.uppercased(), rsvp: rsvp)
    }

    // MARK: libical values

    private static func propertyName(_ p: OpaquePointer) -> String {
        icalproperty_get_property_name(p).map { String(cString: $0).uppercased() } ?? ""
    }

    /// A property's value: the text itself for TEXT and X values (escapes undone), libical's
    /// writing of it otherwise.
    private static func valueText(_ p: OpaquePointer) -> String? {
        if let v = icalproperty_get_value(p) {
            switch icalvalue_isa(v) {
            case ICAL_TEXT_VALUE: return icalvalue_get_text(v).map { String(cString: $0) }
            case ICAL_X_VALUE: return icalvalue_get_x(v).map { String(cString: $0) }
            default: break
            }
        }
        return icalproperty_get_value_as_string(p).map { String(cString: $0) }
    }

    /// A parameter's value as written (the first of its kind).
    private static func parameter(_ p: OpaquePointer, _ kind: icalparameter_kind) -> String? {
        guard let param = icalproperty_get_first_parameter(p, kind) else { return nil }
        // RSVP, ROLE and PARTSTAT are enumerations in libical: their text is the parameter's
        return icalparameter_as_ical_string(param).flatMap { raw -> String? in
            let s = String(cString: raw)
            guard let eq = s.firstIndex(of: "=") else { return nil }
            var v = Substring(s[s.index(after: eq)...])
            if v.first == "\"" && v.last == "\"" && v.count >= 2 { v = v.dropFirst().dropLast() }
            return String(v)
        }
    }

    // MARK: time

    /// Reads a time and resolves its TZID in `zones`.
    private static func readTime(_ t: icaltimetype, tzid: String?, zones: CalendarZones) -> ICalTime {
        var r = ICalTime(kind: .floating, year: Int(t.year), month: Int(t.month), day: Int(t.day),
                         hour: Int(t.hour), minute: Int(t.minute), second: Int(t.second), tzid: tzid)
        if t.is_date != 0 {
            r.kind = .date
            r.hour = 0; r.minute = 0; r.second = 0
            return r
        }
        if icaltime_is_utc(t) != 0 {
            r.kind = .utc
            // counted as zoned times are: icaltime_as_timet answers -1 (1969-12-31T23:59:59Z)
            // for years before 1902 and after 9999
            r.utc = Int(icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone()))
            return r
        }
        let zone = zones.zone(tzid)
        if let tzid {
            r.zone = zones.iana(tzid)
            r.kind = zone == nil ? .unknownZone : .zoned
        } else if zone != nil {
            r.zone = zones.floatingZone
            r.kind = .zoned
        }
        if let zone { r.utc = Int(icaltime_as_timet_with_zone(t, zone)) }
        return r
    }

    /// The libical time for an ICalTime's wall clock (for arithmetic).
    static func icalTime(_ t: ICalTime) -> icaltimetype {
        var v = icaltime_null_time()
        v.year = Int32(t.year); v.month = Int32(t.month); v.day = Int32(t.day)
        v.hour = Int32(t.hour); v.minute = Int32(t.minute); v.second = Int32(t.second)
        v.is_date = t.isDate ? 1 : 0
        if t.kind == .utc { v.zone = icaltimezone_get_utc_timezone() }
        return v
    }
}

/// What the module shares with libical's global state.
enum LibICal {
    /// Errors are reported, not fatal (libical can be built to abort on them).
    static let setUp: Void = { icalerror_set_errors_are_fatal(0) }()

    /// Runs `body` with standard error sent to /dev/null: libical's parser prints its warnings
    /// there ("icalparser.c:786: Encountered END before BEGIN", once per line of a broken
    /// file), which would bury the tools' own messages. Its errors reach us as X-LIC-ERROR.
    /// fd 2 is the process's: the first of the threads parsing at once silences it and the last
    /// gives it back (each on its own would save another's /dev/null and restore that).
    static func quietly<T>(_ body: () -> T) -> T {
        silence.withLock { s in
            if s.depth == 0 {
                let saved = dup(2)
                let null = open("/dev/null", O_WRONLY)
                if saved >= 0, null >= 0 {
                    dup2(null, 2)
                    s.saved = saved
                } else if saved >= 0 {
                    close(saved)
                }
                if null >= 0 { close(null) }
            }
            s.depth += 1
        }
        defer {
            silence.withLock { s in
                s.depth -= 1
                if s.depth == 0, s.saved >= 0 {
                    dup2(s.saved, 2)
                    close(s.saved)
                    s.saved = -1
                }
            }
        }
        return body()
    }

    /// How many threads are in `quietly`, and the standard error they took away.
    private static let silence = Mutex<(depth: Int, saved: Int32)>((0, -1))

    /// libical's zone for an IANA id, from the system's zoneinfo (nil when it has none).
    static func builtinZone(_ iana: String) -> OpaquePointer? {
        if iana == "UTC" || iana == "Etc/UTC" || iana == "GMT" { return icaltimezone_get_utc_timezone() }
        return iana.withCString { icaltimezone_get_builtin_timezone($0) }
    }
}

extension ICalendarReader {
    public static func isKnownZone(_ id: String) -> Bool { LibICal.builtinZone(id) != nil }
}
