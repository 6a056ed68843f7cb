/// Calendar arithmetic on the proleptic Gregorian calendar (Howard Hinnant's algorithms):
/// day numbers counted from 1970-01-01, for dates read from mail and written as RFC 3339.
public enum CivilDate {
    /// Days since 1970-01-01.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The year, month and day of a day number.
    public static func date(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension CivilDate {
    /// RFC 3339 in UTC with `Z`: 2026-03-10T09:00:00Z.
    public static func rfc3339(_ epoch: Int) -> String {
        let (days, secs) = split(epoch)
        let (y, m, d) = date(days: days)
        guard (0...9999).contains(y) else { return dateText(days: days) + "T" + clockText(seconds: secs) + "Z" }
        // written into bytes: calendars of thousands of events write three of these per event
        return String(unsafeUninitializedCapacity: 20) { out in
            func put(_ value: Int, at start: Int, width: Int) {
                var v = value
                for i in stride(from: start + width - 1, through: start, by: -1) {
                    out[i] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
            }
            put(y, at: 0, width: 4)
            put(m, at: 5, width: 2)
            put(d, at: 8, width: 2)
            put(secs / 3600, at: 11, width: 2)
            put(secs % 3600 / 60, at: 14, width: 2)
            put(secs % 60, at: 17, width: 2)
            for (i, c) in zip([4, 7, 10, 13, 16, 19], "--T::Z".utf8) { out[i] = c }
            return 20
        }
    }

    /// Seconds since 1970 as a day number and the seconds since that day's midnight.
    public static func split(_ epoch: Int) -> (days: Int, seconds: Int) {
        let days = epoch >= 0 ? epoch / 86400 : (epoch - 86399) / 86400
        return (days, epoch - days * 86400)
    }

    /// `HH:MM:SS` of the seconds since midnight.
    public static func clockText(seconds secs: Int) -> String {
        two(secs / 3600) + ":" + two(secs % 3600 / 60) + ":" + two(secs % 60)
    }

    /// `YYYY-MM-DD` of a day number.
    public static func dateText(days: Int) -> String {
        let (y, m, d) = date(days: days)
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        return year + "-" + two(m) + "-" + two(d)
    }

    /// The day number of `YYYY-MM-DD` (what follows it is not read), nil when it is no date.
    public static func days(dateText s: some StringProtocol) -> Int? {
        let b = Array(s.utf8.prefix(10))
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              let y = number(b[0..<4]), let m = number(b[5..<7]), let d = number(b[8..<10]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        return days(year: y, month: m, day: d)
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ` (or of midnight UTC of `YYYY-MM-DD`).
    public static func epoch(rfc3339 s: some StringProtocol) -> Int? {
        guard let d = days(dateText: s) else { return nil }
        let b = Array(s.utf8)
        if b.count == 10 { return d * 86400 }
        guard b.count >= 19, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let h = number(b[11..<13]), let mi = number(b[14..<16]), let se = number(b[17..<19]) else { return nil }
        return d * 86400 + h * 3600 + mi * 60 + se
    }

    private static func number(_ b: ArraySlice<UInt8>) -> Int? {
        var v = 0
        for c in b {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return v
    }

    private static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
