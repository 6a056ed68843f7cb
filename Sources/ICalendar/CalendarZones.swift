internal import CLibical
import Synchronization
import UnicodeServices

/// The zones one calendar's times are read in, each TZID resolved once: the IANA zone it stands
/// for, from the system's time-zone data, else the calendar's own VTIMEZONE; with no TZID, the
/// zone floating times are read in. The system's data first, as Thunderbird and Python's
/// icalendar do: a VTIMEZONE often holds only the years around the invitation (or Outlook's
/// rule of today, from 1601).
final class CalendarZones {
    /// The VCALENDAR (or the component standing for one) whose VTIMEZONEs TZIDs may name.
    private let calendar: OpaquePointer?
    /// The IANA zone of floating times, nil to leave them floating.
    let floatingZone: String?
    private var resolved: [String: (iana: String?, zone: OpaquePointer?)] = [:]

    init(_ calendar: OpaquePointer?, floatingZone: String?) {
        self.calendar = calendar
        self.floatingZone = floatingZone
    }

    /// libical's zone for a TZID, or for floating times when `tzid` is nil.
    func zone(_ tzid: String?) -> OpaquePointer? {
        guard let tzid else { return floatingZone.flatMap(LibICal.builtinZone) }
        return resolve(tzid).zone
    }

    /// The IANA id a TZID stands for (TimeZoneIDs.iana).
    func iana(_ tzid: String) -> String? { resolve(tzid).iana }

    private func resolve(_ tzid: String) -> (iana: String?, zone: OpaquePointer?) {
        if let known = resolved[tzid] { return known }
        let iana = TimeZoneIDs.iana(tzid)
        var zone = iana.flatMap(LibICal.builtinZone)
        if zone == nil, let calendar, let own = tzid.withCString({ icalcomponent_get_timezone(calendar, $0) }) {
            zone = VTimezones.shared.zone(like: own)
        }
        resolved[tzid] = (iana, zone)
        return (iana, zone)
    }
}

/// Calendars' own VTIMEZONEs, kept from one calendar to the next by their text. libical works
/// out a zone's changes from its rules (from 1601 for Outlook's) the first time it converts a
/// time in it, for each calendar anew; the same zones come in mail after mail.
final class VTimezones: Sendable {
    static let shared = VTimezones()
    /// What is kept, in VTIMEZONE text: a real zone is 300 bytes (Outlook's) to 14 KB
    /// (Thunderbird's, with its history); the changes libical keeps for one grow with its rules.
    static let textLimit = 256 << 10
    static let zoneTextLimit = 32 << 10

    private struct Kept {
        /// libical's zones (their addresses), by their VTIMEZONE's text; never freed (a calendar
        /// being read elsewhere may hold one).
        var zones: [String: UInt] = [:]
        var textBytes = 0
    }
    private let kept = Mutex(Kept())

    /// The kept zone whose VTIMEZONE is written as `own`'s, kept now if it is new and like a real
    /// zone (yearly rules only); else `own`.
    func zone(like own: OpaquePointer) -> OpaquePointer {
        guard let component = icaltimezone_get_component(own), let raw = icalcomponent_as_ical_string_r(component) else { return own }
        let text = String(cString: raw)
        icalmemory_free_buffer(raw)
        let address = kept.withLock { kept -> UInt? in
            if let zone = kept.zones[text] { return zone }
            let size = text.utf8.count
            guard size <= Self.zoneTextLimit, kept.textBytes + size <= Self.textLimit, Self.hasOnlyYearlyRules(text),
                  let zone = icaltimezone_new() else { return nil }
            guard icaltimezone_set_component(zone, icalcomponent_new_clone(component)) != 0 else {
                icaltimezone_free(zone, 1)
                return nil
            }
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(zone)))
            kept.zones[text] = address
            kept.textBytes += size
            return address
        }
        return address.flatMap { OpaquePointer(bitPattern: $0) } ?? own
    }

    /// Whether every RRULE of a VTIMEZONE is yearly, as in every real zone: a daily rule from
    /// 1601 would keep 150,000 changes.
    static func hasOnlyYearlyRules(_ text: String) -> Bool {
        var rest = Substring(text)
        while let r = rest.firstRange(of: "FREQ=") {
            rest = rest[r.upperBound...]
            guard rest.hasPrefix("YEARLY") else { return false }
        }
        return true
    }
}
