internal import CLibical

/// libical 3's `icaltime_add` (the duration's fields added to the wall clock's, then carried into
/// the next field up, in C's 32-bit arithmetic), with the same results but without its walk a
/// month at a time: `DURATION:P999999999999999999W` walked 42 million months, a quarter of a
/// second per event.
struct WallClock: Equatable {
    var year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32
    var isDate: Bool

    init(year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32, isDate: Bool) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second, self.isDate) = (year, month, day, hour, minute, second, isDate)
    }

    init(_ t: icaltimetype) {
        self.init(year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second, isDate: t.is_date != 0)
    }

    /// The wall clock into `t`'s fields (its zone and flags stay).
    func store(into t: inout icaltimetype) {
        (t.year, t.month, t.day, t.hour, t.minute, t.second) = (year, month, day, hour, minute, second)
    }

    /// `icaltime_add(self, d)`.
    func adding(_ d: icaldurationtype) -> WallClock {
        var t = self
        // the fields are unsigned; C converts their sums back to int, wrapping
        let days = Int32(truncatingIfNeeded: d.weeks &* 7 &+ d.days)
        let (h, m, s) = (Int32(truncatingIfNeeded: d.hours), Int32(truncatingIfNeeded: d.minutes), Int32(truncatingIfNeeded: d.seconds))
        if d.is_neg == 0 {
            t.day &+= days; t.hour &+= h; t.minute &+= m; t.second &+= s
        } else {
            t.day &-= days; t.hour &-= h; t.minute &-= m; t.second &-= s
        }
        t.normalize()
        return t
    }

    /// `icaltime_normalize`: seconds, minutes and hours carried up, the month brought into 1...12,
    /// then the day into its month, month by month (with libical's Julian leap years up to 1752).
    mutating func normalize() {
        var daysOver: Int32 = 0
        if !isDate {
            var carry: Int32
            (second, carry) = Self.carry(second, 60)
            (minute, carry) = Self.carry(minute &+ carry, 60)
            (hour, daysOver) = Self.carry(hour &+ carry, 24)
        }
        if month >= 13 {
            let years = (month - 1) / 12
            year &+= years
            month -= years * 12
        } else if month <= 0 {
            let years = month / 12 - 1
            year &+= years
            month -= years * 12
        }
        var d = Int(day &+ daysOver)
        var y = Int(year), m = Int(month)
        if d > 0 {
            while true {
                // whole cycles at once: 400 Gregorian years after 1752 are 146,097 days from any
                // month, 4 Julian years up to 1752 are 1,461
                if y > 1752, d > 146_097 {
                    let cycles = (d - 1) / 146_097
                    y += 400 * cycles
                    d -= 146_097 * cycles
                } else if y + 4 <= 1752, d > 1461 {
                    let cycles = min((d - 1) / 1461, (1752 - y) / 4)
                    y += 4 * cycles
                    d -= 1461 * cycles
                }
                let length = Self.daysInMonth(m, y)
                if d <= length { break }
                m += 1
                if m >= 13 { y += 1; m = 1 }
                d -= length
            }
        } else {
            while d <= 0 {
                if y - 400 > 1752, d <= -146_097 {
                    let cycles = min(-d / 146_097, (y - 1753) / 400)
                    y -= 400 * cycles
                    d += 146_097 * cycles
                } else if y <= 1752, d <= -1461 {
                    let cycles = -d / 1461
                    y -= 4 * cycles
                    d += 1461 * cycles
                }
                if d > 0 { break }
                if m == 1 { y -= 1; m = 12 } else { m -= 1 }
                d += Self.daysInMonth(m, y)
            }
        }
        (year, month, day) = (Int32(truncatingIfNeeded: y), Int32(truncatingIfNeeded: m), Int32(truncatingIfNeeded: d))
    }

    /// C's `%` and `/` (toward zero), then a negative remainder lifted by one unit.
    private static func carry(_ v: Int32, _ unit: Int32) -> (Int32, Int32) {
        var r = v % unit, q = v / unit
        if r < 0 { r += unit; q -= 1 }
        return (r, q)
    }

    /// `icaltime_days_in_month`: 30 for a month out of range; leap years by the Julian rule up to
    /// 1752, as libical counts them.
    static func daysInMonth(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: return 31
        case 4, 6, 9, 11: return 30
        case 2:
            let leap = year <= 1752 ? year & 3 == 0 : (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        default: return 30
        }
    }
}

extension ICalendarReader {
    /// A wall clock (year, month, day, hour, minute, second) plus a DURATION value, by
    /// `WallClock.adding` or by libical's own `icaltime_add`: the tests compare the two.
    static func add(duration: String, to fields: [Int32], isDate: Bool, byLibical: Bool) -> [Int32] {
        let d = duration.withCString { icaldurationtype_from_string($0) }
        let clock = WallClock(year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4],
                              second: fields[5], isDate: isDate)
        var result = clock
        if byLibical {
            var t = icaltime_null_time()
            clock.store(into: &t)
            t.is_date = isDate ? 1 : 0
            result = WallClock(icaltime_add(t, d))
        } else {
            result = clock.adding(d)
        }
        return [result.year, result.month, result.day, result.hour, result.minute, result.second]
    }
}
