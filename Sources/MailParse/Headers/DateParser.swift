/// Dates as mail writes them: RFC 5322, its obsolete forms (two- and three-digit years, named
/// and military zones, missing seconds or day name, comments), asctime as in mbox From_ lines
/// (with or without a zone before the year), and ISO 8601. Result: seconds since the epoch, UTC.
public enum MailDate {
    public static func parse(_ text: String) -> Int? {
        var day: Int?, month: Int?, year: Int?
        var hour = 0, minute = 0, second = 0
        var offset = 0  // seconds east of UTC
        var numbers: [(value: Int, digits: Int)] = []

        // ISO 8601: 2024-01-02T03:04:05Z / +08:00
        if let iso = parseISO(text) { return iso }

        for token in tokens(text) {
            if token.first!.isNumber || ((token.first == "+" || token.first == "-") && token.count >= 4) {
                if token.contains(":") {
                    let parts = token.split(separator: ":").map { Int($0) }
                    guard parts.count >= 2, let h = parts[0], let m = parts[1] else { continue }
                    hour = h
                    minute = m
                    second = parts.count > 2 ? (parts[2] ?? 0) : 0
                } else if token.first == "+" || token.first == "-" {
                    var digits = String(token.dropFirst().prefix(4))
                    if digits.count == 3 { digits = "0" + digits }  // "-600"
                    guard digits.count == 4, let v = Int(digits) else { continue }
                    let sign = token.first == "-" ? -1 : 1
                    offset = sign * ((v / 100) * 3600 + (v % 100) * 60)
                } else if let v = Int(token) {
                    numbers.append((v, token.count))
                }
                continue
            }
            let word = token.lowercased()
            if let m = monthNames[String(word.prefix(3))], word.count >= 3, month == nil, word.allSatisfy(\.isLetter) {
                month = m
            } else if let z = zones[word] {
                offset = z * 3600
            }
        }
        // the first number of one or two digits is the day, a number of 3+ digits or > 31 the year
        for n in numbers {
            if day == nil, n.digits <= 2, n.value >= 1, n.value <= 31 {
                day = n.value
            } else if year == nil {
                year = n.value
                if n.digits <= 2 { year = n.value < 50 ? 2000 + n.value : 1900 + n.value }
                else if n.digits == 3 { year = 1900 + n.value }
            }
        }
        guard let d = day, let m = month, let y = year else { return nil }
        guard hour < 24, minute < 60, second <= 60, d <= daysIn(month: m, year: y) else { return nil }
        let days = daysFromCivil(year: y, month: m, day: d)
        return days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }

    /// RFC 3339 in UTC with `Z`.
    public static func rfc3339(_ epoch: Int) -> String {
        let days = epoch >= 0 ? epoch / 86400 : (epoch - 86399) / 86400
        let secs = epoch - days * 86400
        let (y, m, d) = civilFromDays(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        return "\(year)-\(two(m))-\(two(d))T\(two(secs / 3600)):\(two(secs % 3600 / 60)):\(two(secs % 60))Z"
    }

    private static func tokens(_ text: String) -> [Substring] {
        // drop comments, split on whitespace and commas; keep ':' inside times
        var cleaned = ""
        var depth = 0
        for ch in text {
            if ch == "(" { depth += 1; continue }
            if ch == ")" { depth = max(0, depth - 1); continue }
            if depth > 0 { continue }
            cleaned.append(ch == "," || ch == "." && !cleaned.isEmpty && !(cleaned.last?.isNumber ?? false) ? " " : ch)
        }
        var result: [Substring] = []
        for t in cleaned.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }) {
            // a zone glued to the time: "00:01+0000"
            if t.contains(":"), let sign = t.firstIndex(where: { $0 == "+" || $0 == "-" }), sign != t.startIndex {
                result.append(t[..<sign])
                result.append(t[sign...])
            } else if t.contains("-"), t.first?.isNumber == true, !t.contains(":") {
                // "12-Jan-2024"
                result.append(contentsOf: t.split(separator: "-"))
            } else if t.hasSuffix(".") {
                result.append(t.dropLast())
            } else {
                result.append(t)
            }
        }
        return result
    }

    private static func parseISO(_ text: String) -> Int? {
        let s = Array(text.trimmingSpaces.utf8)
        guard s.count >= 19, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: " "), s[13] == UInt8(ascii: ":"),
            let y = num(s, 0, 4), let mo = num(s, 5, 2), let d = num(s, 8, 2), let h = num(s, 11, 2),
            let mi = num(s, 14, 2), let se = num(s, 17, 2), (1...12).contains(mo), d >= 1, d <= 31
        else { return nil }
        var i = 19
        if i < s.count, s[i] == UInt8(ascii: ".") {
            i += 1
            while i < s.count, s[i] >= UInt8(ascii: "0"), s[i] <= UInt8(ascii: "9") { i += 1 }
        }
        var offset = 0
        if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
            let digits = s[(i + 1)...].filter { $0 != UInt8(ascii: ":") }
            if digits.count >= 4, let oh = num(Array(digits), 0, 2), let om = num(Array(digits), 2, 2) {
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        return daysFromCivil(year: y, month: mo, day: d) * 86400 + h * 3600 + mi * 60 + se - offset
    }

    private static func num(_ s: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at + n <= s.count else { return nil }
        var v = 0
        for k in at..<(at + n) {
            guard s[k] >= UInt8(ascii: "0"), s[k] <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(s[k] - UInt8(ascii: "0"))
        }
        return v
    }

    static let monthNames: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
        "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
    ]

    /// RFC 5322 obsolete zones; military letters and unknown names mean -0000 (no information).
    static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "edt": -4, "est": -5, "cdt": -5, "cst": -6,
        "mdt": -6, "mst": -7, "pdt": -7, "pst": -8,
    ]

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
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
