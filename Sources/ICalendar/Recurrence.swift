import CivilTime
internal import CLibical

extension ICalTime {
    /// A date (`YYYY-MM-DD`) as an all-day time.
    public static func date(_ text: some StringProtocol) -> ICalTime? {
        guard let days = CivilDate.days(dateText: text) else { return nil }
        let (y, m, d) = CivilDate.date(days: days)
        return ICalTime(kind: .date, year: y, month: m, day: d)
    }

    /// An instant (seconds since 1970, UTC).
    public static func instant(_ epoch: Int) -> ICalTime {
        var t = ICalTime(wallClock: epoch, kind: .utc)
        t.utc = epoch
        return t
    }

    /// A wall-clock time (`YYYY-MM-DDTHH:MM:SS`) in the IANA zone `zone`, or floating when
    /// `zone` is nil. nil when the text is not a time or libical does not know the zone.
    public static func local(_ text: some StringProtocol, zone: String?) -> ICalTime? {
        guard text.utf8.count == 19, let seconds = CivilDate.epoch(rfc3339: text) else { return nil }
        var t = ICalTime(wallClock: seconds, kind: .floating)
        guard let zone else { return t }
        guard let z = LibICal.builtinZone(zone) else { return nil }
        t.kind = .zoned
        t.zone = zone
        t.tzid = zone
        t.utc = Int(icaltime_as_timet_with_zone(ICalendarReader.icalTime(t), z))
        return t
    }

    /// The time whose fields are `seconds` since 1970 read as a wall clock.
    private init(wallClock seconds: Int, kind: Kind) {
        let (days, secs) = CivilDate.split(seconds)
        let (y, m, d) = CivilDate.date(days: days)
        self.init(kind: kind, year: y, month: m, day: d, hour: secs / 3600, minute: secs % 3600 / 60, second: secs % 60)
    }

    /// The wall clock in the IANA zone `zone` at an instant.
    public static func local(epoch: Int, zone: String) -> ICalTime? {
        guard let z = LibICal.builtinZone(zone) else { return nil }
        let t = icaltime_from_timet_with_zone(time_t(epoch), 0, z)
        return ICalTime(kind: .zoned, year: Int(t.year), month: Int(t.month), day: Int(t.day), hour: Int(t.hour),
                        minute: Int(t.minute), second: Int(t.second), utc: epoch, tzid: zone, zone: zone)
    }

    /// The instant of this time, reading a date or a floating time in `zone` (a date as its
    /// midnight).
    public func epoch(readingLocalIn zone: String) -> Int? {
        if let utc { return utc }
        guard kind == .date || kind == .floating, let z = LibICal.builtinZone(zone) else { return nil }
        var t = ICalendarReader.icalTime(self)
        t.is_date = 0
        return Int(icaltime_as_timet_with_zone(t, z))
    }
}

/// The occurrences of a recurring event (RFC 5545 3.8.5), by libical's recurrence iterator.
public enum ICalRecurrence {
    public struct Expansion: Sendable {
        /// Occurrences that overlap the window, in order: each start in the start's kind and zone,
        /// and the instant it is (dates and floating times read in the view zone).
        public var occurrences: [(start: ICalTime, instant: Int)] = []
        /// False when the iterator gave up before reaching the window's end (`limit`).
        public var complete = true
    }

    /// The occurrences of a series starting at `start` (with its rule, RDATEs and EXDATEs) that
    /// overlap `window` (instants, seconds). Each lasts `duration` seconds. Dates and floating
    /// times are placed in `viewZone`. At most `limit` steps of the rule are taken, so a rule
    /// that never ends (FREQ=SECONDLY without UNTIL) ends in time.
    public static func occurrences(start: ICalTime, rule: String?, rdates: [ICalTime], exdates: [ICalTime], duration: Int,
                                   window: Range<Int>, viewZone: String, limit: Int = 1_000_000) -> Expansion {
        LibICal.setUp
        var result = Expansion()
        let zone = start.kind == .zoned ? start.zone.flatMap(LibICal.builtinZone) : nil
        if start.kind == .zoned && zone == nil || start.kind == .unknownZone { return result }

        func epoch(_ t: ICalTime) -> Int? { t.epoch(readingLocalIn: viewZone) }
        let excluded = Set(exdates.compactMap(epoch))
        var found: [Int: ICalTime] = [:]
        func consider(_ t: ICalTime, _ s: Int) {
            let overlaps = s < window.upperBound && (s + duration > window.lowerBound || s >= window.lowerBound)
            if overlaps && !excluded.contains(s) { found[s] = t }
        }

        // DTSTART is the first occurrence even when the rule does not give it (RFC 5545 3.8.5.3)
        for t in [start] + rdates { if let s = epoch(t) { consider(t, s) } }
        if let rule, let first = epoch(start), first < window.upperBound {
            result.complete = iterate(rule: rule, start: start, first: first, zone: zone, viewZone: viewZone, window: window,
                                      duration: duration, limit: limit, consider)
        }
        result.occurrences = found.keys.sorted().map { (found[$0]!, $0) }
        return result
    }

    /// Walks the rule from DTSTART (or from near the window, for rules where libical can jump:
    /// daily and longer, without COUNT) until an occurrence starts after the window.
    private static func iterate(rule: String, start: ICalTime, first: Int, zone: OpaquePointer?, viewZone: String,
                                window: Range<Int>, duration: Int, limit: Int, _ consider: (ICalTime, Int) -> Void) -> Bool {
        let recurrence = rule.withCString { icalrecurrencetype_from_string($0) }
        guard recurrence.freq != ICAL_NO_RECURRENCE else { return true }
        var dtstart = ICalendarReader.icalTime(start)
        // the zone stays on DTSTART: libical compares a UTC UNTIL with each occurrence in it
        dtstart.zone = zone ?? (start.kind == .utc ? icaltimezone_get_utc_timezone() : nil)
        guard let iterator = icalrecur_iterator_new(recurrence, dtstart) else { return true }
        defer { icalrecur_iterator_free(iterator) }

        func instant(_ t: icaltimetype) -> Int {
            var v = t
            v.is_date = 0
            return Int(icaltime_as_timet_with_zone(v, wallClock))
        }

        // libical's jump keeps DTSTART's time of day, right only for daily and longer rules
        let jumps = recurrence.count == 0 && recurrence.freq.rawValue >= ICAL_DAILY_RECURRENCE.rawValue
        let lookBack = window.lowerBound - duration - 2 * 86400
        let wallClock = zone ?? (start.kind == .utc ? icaltimezone_get_utc_timezone() : LibICal.builtinZone(viewZone))
        if jumps, lookBack > first {
            var from = icaltime_from_timet_with_zone(time_t(lookBack), 0, wallClock)
            from.zone = dtstart.zone
            from.is_date = dtstart.is_date
            if from.is_date != 0 { from.hour = 0; from.minute = 0; from.second = 0 }
            icalrecur_iterator_set_start(iterator, from)
        }
        var steps = 0
        while true {
            let t = icalrecur_iterator_next(iterator)
            if icaltime_is_null_time(t) != 0 { return true }
            steps += 1
            let s = instant(t)
            if s >= window.upperBound { return true }
            if steps > limit { return false }
            if s + duration < window.lowerBound && s < window.lowerBound { continue }
            var occurrence = start
            occurrence.year = Int(t.year); occurrence.month = Int(t.month); occurrence.day = Int(t.day)
            if !start.isDate { occurrence.hour = Int(t.hour); occurrence.minute = Int(t.minute); occurrence.second = Int(t.second) }
            if start.kind == .zoned || start.kind == .utc { occurrence.utc = s }
            consider(occurrence, s)
        }
    }
}
