import CivilTime

/// Dates as mail writes them: RFC 5322, its obsolete forms (two- and three-digit years, named
/// and military zones, missing seconds or day name, comments), asctime as in mbox From_ lines
/// (with or without a zone before the year), and ISO 8601. Result: seconds since the epoch, UTC.
public enum MailDate {
    public static func parse(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { parse(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Parses on bytes: dates are parsed for every message and every From_ line candidate.
    public static func parse(bytes s: UnsafeRawBufferPointer) -> Int? {
        if let iso = parseISO(s) { return iso }
        var day: Int?, month: Int?, year: Int?
        var hour = 0, minute = 0, second = 0
        var offset = 0  // seconds east of UTC
        var i = 0
        let n = s.count
        var depth = 0
        var afterTime = false
        while i < n {
            let c = s[i]
            if c == UInt8(ascii: "(") { depth += 1; i += 1; continue }
            if c == UInt8(ascii: ")") { depth = max(0, depth - 1); i += 1; continue }
            if depth > 0 || !isTokenByte(c) { i += 1; continue }
            if isDigit(c) {
                // a number, or a time hh:mm[:ss] (its first three values kept)
                var values = (0, 0, 0)
                var count = 0
                var digits = 0
                var v = 0
                func push(_ value: Int) {
                    switch count {
                    case 0: values.0 = value
                    case 1: values.1 = value
                    case 2: values.2 = value
                    default: break
                    }
                    count += 1
                }
                while i < n, isDigit(s[i]) || s[i] == UInt8(ascii: ":") {
                    if s[i] == UInt8(ascii: ":") {
                        push(v)
                        v = 0
                        digits = 0
                    } else {
                        v = v &* 10 &+ Int(s[i] - UInt8(ascii: "0"))
                        digits += 1
                        if digits > 9 { return nil }
                    }
                    i += 1
                }
                push(v)
                afterTime = count >= 2
                if count >= 2 {
                    hour = values.0
                    minute = values.1
                    second = count > 2 ? values.2 : 0
                } else if day == nil, digits <= 2, v >= 1, v <= 31 {
                    day = v
                } else if year == nil {
                    year = digits <= 2 ? (v < 50 ? 2000 + v : 1900 + v) : digits == 3 ? 1900 + v : v
                }
                continue
            }
            // a zone stands alone, or right after the time ("00:01+0000"); "12-Jan-2024" has none
            if (c == UInt8(ascii: "+") || c == UInt8(ascii: "-")) && (i == 0 || Bytes.isWhitespace(s[i - 1]) || afterTime) {
                afterTime = false
                var j = i + 1
                var v = 0
                while j < n, isDigit(s[j]), j - i <= 4 {
                    v = v * 10 + Int(s[j] - UInt8(ascii: "0"))
                    j += 1
                }
                let count = j - i - 1
                if count == 4 || count == 3 {  // +0800, and -600 for -0600
                    let sign = c == UInt8(ascii: "-") ? -1 : 1
                    offset = sign * ((v / 100) * 3600 + (v % 100) * 60)
                }
                i = max(j, i + 1)
                continue
            }
            afterTime = false
            // a word: a month, a zone name, a day name
            let start = i
            while i < n, isLetter(s[i]) { i += 1 }
            if i == start {
                i += 1
                continue
            }
            let word = UnsafeRawBufferPointer(rebasing: s[start..<i])
            if month == nil, word.count >= 3, let m = monthNumber(word) {
                month = m
            } else if let z = zoneHours(word) {
                offset = z * 3600
            }
        }
        guard let d = day, let m = month, let y = year else { return nil }
        guard hour < 24, minute < 60, second <= 60, d <= daysIn(month: m, year: y) else { return nil }
        let days = CivilDate.days(year: y, month: m, day: d)
        return days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }

    @inline(__always) private static func isTokenByte(_ c: UInt8) -> Bool {
        isDigit(c) || isLetter(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
    }

    @inline(__always) private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- UInt8(ascii: "a") < 26 }

    private static let months = Array("janfebmaraprmayjunjulaugsepoctnovdec".utf8)

    /// The month a word names by its first three letters (Jan, January), if it is one.
    private static func monthNumber(_ w: UnsafeRawBufferPointer) -> Int? {
        let a = w[0] | 0x20, b = w[1] | 0x20, c = w[2] | 0x20
        for m in 0..<12 where months[m * 3] == a && months[m * 3 + 1] == b && months[m * 3 + 2] == c {
            return m + 1
        }
        return nil
    }

    /// RFC 5322 obsolete zones; military letters and unknown names mean -0000 (no information).
    private static func zoneHours(_ w: UnsafeRawBufferPointer) -> Int? {
        var name = 0
        guard w.count <= 3 else { return nil }
        for c in w { name = name << 8 | Int(c | 0x20) }
        switch name {
        case 0x7574, 0x757463, 0x676d74, 0x7a: return 0  // ut, utc, gmt, z
        case 0x656474: return -4  // edt
        case 0x657374, 0x636474: return -5  // est, cdt
        case 0x637374, 0x6d6474: return -6  // cst, mdt
        case 0x6d7374, 0x706474: return -7  // mst, pdt
        case 0x707374: return -8  // pst
        default: return nil
        }
    }

    /// RFC 3339 in UTC with `Z`.
    public static func rfc3339(_ epoch: Int) -> String { CivilDate.rfc3339(epoch) }

    /// ISO 8601: 2024-01-02T03:04:05Z, +08:00, fractions of a second.
    private static func parseISO(_ raw: UnsafeRawBufferPointer) -> Int? {
        var lo = 0
        while lo < raw.count, Bytes.isWhitespace(raw[lo]) { lo += 1 }
        let s = UnsafeRawBufferPointer(rebasing: raw[lo...])
        guard s.count >= 19, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: " "), s[13] == UInt8(ascii: ":"),
            let y = num(s, 0, 4), let mo = num(s, 5, 2), let d = num(s, 8, 2), let h = num(s, 11, 2),
            let mi = num(s, 14, 2), let se = num(s, 17, 2), (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y),
            h < 24, mi < 60, se <= 60
        else { return nil }
        var i = 19
        if i < s.count, s[i] == UInt8(ascii: ".") {
            i += 1
            while i < s.count, isDigit(s[i]) { i += 1 }
        }
        var offset = 0
        if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
            let digits = Array(s[(i + 1)...].filter { $0 != UInt8(ascii: ":") })
            if digits.count >= 4, let oh = digits.withUnsafeBytes({ num($0, 0, 2) }), let om = digits.withUnsafeBytes({ num($0, 2, 2) }) {
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        return CivilDate.days(year: y, month: mo, day: d) * 86400 + h * 3600 + mi * 60 + min(se, 59) - offset
    }

    private static func num(_ s: UnsafeRawBufferPointer, _ at: Int, _ n: Int) -> Int? {
        guard at + n <= s.count else { return nil }
        var v = 0
        for k in at..<(at + n) {
            guard s[k] >= UInt8(ascii: "0"), s[k] <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(s[k] - UInt8(ascii: "0"))
        }
        return v
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
