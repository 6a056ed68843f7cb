internal import CLibical

/// Writes events as one iCalendar file (RFC 5545) that calendar applications import: libical
/// builds and serializes it; each zone used gets the VTIMEZONE of the system's time-zone data,
/// under its IANA id.
public enum ICalendarWriter {
    /// The text SUMMARY, DESCRIPTION, LOCATION and URL come from `properties`. `method`: the
    /// iTIP METHOD of the whole calendar (PUBLISH for one to subscribe to), none when nil.
    public static func calendar(_ events: [ICalEvent], productID: String, method: String? = nil) -> String {
        LibICal.setUp
        let calendar = icalcomponent_new(ICAL_VCALENDAR_COMPONENT)!
        defer { icalcomponent_free(calendar) }
        icalcomponent_add_property(calendar, icalproperty_new_version("2.0"))
        icalcomponent_add_property(calendar, icalproperty_new_prodid(productID))
        icalcomponent_add_property(calendar, icalproperty_new_calscale("GREGORIAN"))
        if let method, let p = icalproperty_new_from_string("METHOD:" + method) { icalcomponent_add_property(calendar, p) }
        var zones: [String] = []
        var vevents: [OpaquePointer] = []
        for e in events {
            vevents.append(vevent(e, zones: &zones))
        }
        for zone in zones {
            guard let builtin = LibICal.builtinZone(zone), let component = icaltimezone_get_component(builtin),
                  let copy = icalcomponent_new_clone(component) else { continue }
            if let tzid = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) { icalproperty_set_tzid(tzid, zone) }
            icalcomponent_add_component(calendar, copy)
        }
        for v in vevents { icalcomponent_add_component(calendar, v) }
        guard let text = icalcomponent_as_ical_string_r(calendar) else { return "" }
        defer { icalmemory_free_buffer(text) }
        return String(cString: text)
    }

    private static func vevent(_ e: ICalEvent, zones: inout [String]) -> OpaquePointer {
        let v = icalcomponent_new(ICAL_VEVENT_COMPONENT)!
        func add(_ p: OpaquePointer?) { if let p { icalcomponent_add_property(v, p) } }
        func time(_ t: ICalTime, _ make: (icaltimetype) -> OpaquePointer?) {
            guard let p = make(value(t)) else { return }
            if t.kind == .zoned, let zone = t.zone {
                icalproperty_add_parameter(p, icalparameter_new_tzid(zone))
                if !zones.contains(zone) { zones.append(zone) }
            }
            add(p)
        }
        if let uid = e.uid { add(icalproperty_new_uid(uid)) }
        if let t = e.dtstamp { time(t, icalproperty_new_dtstamp) }
        if let t = e.recurrenceID { time(t, icalproperty_new_recurrenceid) }
        if let sequence = e.sequence { add(icalproperty_new_sequence(Int32(clamping: sequence))) }
        if let t = e.start { time(t, icalproperty_new_dtstart) }
        if let t = e.end { time(t, icalproperty_new_dtend) }
        if let status = e.status { add(icalproperty_new_from_string("STATUS:" + status.uppercased())) }
        for name in ["SUMMARY", "DESCRIPTION", "LOCATION"] {
            guard let text = e.property(name) else { continue }
            let kind = icalproperty_string_to_kind(name)
            if let p = icalproperty_new(kind) {
                icalproperty_set_value(p, icalvalue_new_text(text))
                add(p)
            }
        }
        if let url = e.property("URL") { add(icalproperty_new_url(url)) }
        for rule in e.rules { add(icalproperty_new_rrule(icalrecurrencetype_from_string(rule))) }
        for t in e.rdates {
            var d = icaldatetimeperiodtype()
            d.time = value(t)
            d.period = icalperiodtype_null_period()
            time(t) { _ in icalproperty_new_rdate(d) }
        }
        for t in e.exdates { time(t, icalproperty_new_exdate) }
        if let o = e.organizer { add(person(o, icalproperty_new_organizer)) }
        for a in e.attendees { add(person(a, icalproperty_new_attendee)) }
        return v
    }

    private static func person(_ p: ICalPerson, _ make: (UnsafePointer<CChar>) -> OpaquePointer?) -> OpaquePointer? {
        guard let property = ("mailto:" + p.address).withCString(make) else { return nil }
        if let name = p.name { icalproperty_add_parameter(property, icalparameter_new_cn(name)) }
        for (key, value) in [("ROLE", p.role), ("PARTSTAT", p.status), ("RSVP", p.rsvp.map { $0 ? "TRUE" : "FALSE" })] {
            guard let value, let parameter = icalparameter_new_from_string(key + "=" + value.uppercased()) else { continue }
            icalproperty_add_parameter(property, parameter)
        }
        return property
    }

    /// The libical value of a time: a date, UTC, or the wall clock (the TZID is a parameter).
    private static func value(_ t: ICalTime) -> icaltimetype {
        var v = ICalendarReader.icalTime(t)
        if t.kind != .utc { v.zone = nil }
        return v
    }
}
