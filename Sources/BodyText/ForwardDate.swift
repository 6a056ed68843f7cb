import CivilTime

/// The date of a forward's header block as mail programs write it in their languages: "Tue,
/// Mar 10, 2026 at 4:47 PM" (Gmail), "Tuesday, March 10, 2026 3:05 PM" (Outlook), "13 March 2026
/// at 19:02:33 GMT" (Apple Mail), RFC 5322 (Thunderbird), "Mittwoch, 11. März 2026 17:42",
/// "lun, 16 mar 2026 a las 9:12", "2026年3月17日 週二 下午3:20", "2026년 3월 9일 월요일 오후 3:20". Month names and the words for
/// morning and afternoon are reply-patterns.json's `date_months`, `date_am` and `date_pm`.
/// A date without a zone is in `zoneOffset` (the forwarder's clock: the zone of the forward's
/// own Date header). Day and month written as numbers are read day first after dots
/// (09.03.2026), month first with a 12-hour clock (3/9/2026 3:05 PM); a slashed date with a
/// 24-hour clock whose order nothing says is not read.
struct ForwardDate {
    /// Each month's names and abbreviations, lowercased, by month (1–12).
    private var months: [String: Int] = [:]
    private var am: [String] = []
    private var pm: [String] = []

    init(patterns: ReplyPatterns) {
        for (k, line) in patterns.list("date_months").enumerated() {
            for word in line.split(separator: " ") { months[word.lowercased()] = k % 12 + 1 }
        }
        am = patterns.list("date_am").map { $0.lowercased() }
        pm = patterns.list("date_pm").map { $0.lowercased() }
    }

    /// Seconds since the epoch; nil when no day, month, year and time can be read.
    func read(_ written: String, zoneOffset: Int?) -> Int? {
        let c: [Character] = written.lowercased().map { ch in
            // full-width digits and colon, as CJK dates have them at times
            if let v = ch.unicodeScalars.first?.value, ch.unicodeScalars.count == 1, (0xFF10...0xFF19).contains(v) {
                return Character(Unicode.Scalar(v - 0xFF10 + 0x30)!)
            }
            return ch == "：" ? ":" : ch
        }
        var numbers: [(value: Int, digits: Int, range: Range<Int>)] = []
        var i = 0
        while i < c.count {
            guard c[i].isASCII, c[i].isNumber else { i += 1; continue }
            var j = i, v = 0
            while j < c.count, c[j].isASCII, c[j].isNumber, j - i < 9 { v = v * 10 + Int(String(c[j]))!; j += 1 }
            numbers.append((v, j - i, i..<j))
            i = j
        }
        // the time: h:mm[:ss]
        var time: (h: Int, m: Int, s: Int)?
        var used = Set<Int>()
        for (k, n) in numbers.enumerated() where time == nil && k + 1 < numbers.count && n.digits <= 2 {
            let next = numbers[k + 1]
            guard next.range.lowerBound == n.range.upperBound + 1, c[n.range.upperBound] == ":", next.digits == 2 else { continue }
            var s = 0
            used.formUnion([k, k + 1])
            if k + 2 < numbers.count, numbers[k + 2].range.lowerBound == next.range.upperBound + 1, c[next.range.upperBound] == ":", numbers[k + 2].digits == 2 {
                s = numbers[k + 2].value
                used.insert(k + 2)
            }
            time = (n.value, next.value, s)
        }
        guard let (h, minute, second) = time, minute < 60, second <= 60 else { return nil }
        var hour = h
        let words = Self.words(c)
        let text = String(c)
        func said(_ list: [String]) -> Bool {
            list.contains { w in w.allSatisfy(\.isASCII) ? words.contains(w) : text.contains(w) }
        }
        let isPM = said(pm), isAM = !isPM && said(am)
        if isPM, hour < 12 { hour += 12 }
        if isAM, hour == 12 { hour = 0 }
        guard hour < 24 else { return nil }
        // the zone: +0100, GMT+1, UTC+08:00, GMT, a named one
        var offset: Int?
        for (k, n) in numbers.enumerated() where !used.contains(k) {
            let before = n.range.lowerBound - 1
            guard before >= 0, c[before] == "+" || c[before] == "-" else { continue }
            let sign = c[before] == "-" ? -1 : 1
            let gmt = before >= 3 && ["gmt", "utc"].contains(String(c[(before - 3)..<before]))
            var minutes = 0, hours = n.value
            if n.digits == 4 || n.digits == 3 {
                hours = n.value / 100
                minutes = n.value % 100
            } else if k + 1 < numbers.count, numbers[k + 1].range.lowerBound == n.range.upperBound + 1, c[n.range.upperBound] == ":" {
                minutes = numbers[k + 1].value
                used.insert(k + 1)
            } else if !gmt {
                continue
            }
            guard hours <= 14, minutes < 60 else { continue }
            offset = sign * (hours * 3600 + minutes * 60)
            used.insert(k)
            break
        }
        if offset == nil {
            for w in words {
                if let z = Self.zones[w] { offset = z * 3600; break }
            }
        }
        guard let (year, month, day) = date(c, numbers: numbers, used: used, words: words, twelveHour: isAM || isPM),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month, year), year >= 1970, year < 3000,
              let zone = offset ?? zoneOffset else { return nil }
        return CivilDate.days(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + min(second, 59) - zone
    }

    private func date(_ c: [Character], numbers: [(value: Int, digits: Int, range: Range<Int>)], used: Set<Int>,
                      words: [String], twelveHour: Bool) -> (Int, Int, Int)? {
        let free = numbers.indices.filter { !used.contains($0) }
        func after(_ k: Int) -> Character? { numbers[k].range.upperBound < c.count ? c[numbers[k].range.upperBound] : nil }
        // 2026年3月17日, 2026년 3월 17일
        for k in free where after(k) == "年" || after(k) == "년" {
            if let m = free.first(where: { $0 > k && (after($0) == "月" || after($0) == "월") }),
               let d = free.first(where: { $0 > m && (after($0) == "日" || after($0) == "일") }) {
                return (numbers[k].value, numbers[m].value, numbers[d].value)
            }
        }
        // numbers joined by one separator: 2026-03-17, 17.03.2026, 3/17/2026
        for k in free where k + 2 < numbers.count && free.contains(k + 2) {
            let (a, b, y) = (numbers[k], numbers[k + 1], numbers[k + 2])
            guard let sep = after(k), "./-".contains(sep), b.range.lowerBound == a.range.upperBound + 1,
                  after(k + 1) == sep, y.range.lowerBound == b.range.upperBound + 1 else { continue }
            if a.digits == 4 { return (a.value, b.value, y.value) }
            guard y.digits == 4 else { continue }
            if sep == "." || sep == "-" || a.value > 12 { return (y.value, b.value, a.value) }
            if b.value > 12 || twelveHour { return (y.value, a.value, b.value) }
            return nil
        }
        // a month's name, the last one (a weekday's abbreviation can look like one before it)
        guard let month = words.reversed().lazy.compactMap({ self.months[$0] }).first else { return nil }
        guard let year = free.first(where: { numbers[$0].digits == 4 }).map({ numbers[$0].value }),
              let day = free.first(where: { numbers[$0].digits <= 2 && (1...31).contains(numbers[$0].value) }).map({ numbers[$0].value })
        else { return nil }
        return (year, month, day)
    }

    /// The words of the text: runs of letters, with the dots inside them ("a.m.") and without
    /// one at their end ("Mo.", "mars.").
    private static func words(_ c: [Character]) -> [String] {
        var out: [String] = []
        var word = ""
        for ch in c + [" "] {
            if ch.isLetter || (ch == "." && !word.isEmpty) {
                word.append(ch)
            } else if !word.isEmpty {
                out.append(word)
                if word.hasSuffix(".") { out.append(String(word.dropLast())) }
                word = ""
            }
        }
        return out
    }

    /// Zone names that mean one offset, in hours (RFC 5322's and Europe's and East Asia's).
    private static let zones: [String: Int] = ["gmt": 0, "utc": 0, "ut": 0, "z": 0, "bst": 1, "cet": 1, "cest": 2, "eet": 2, "eest": 3, "mez": 1, "mesz": 2,
                                                "edt": -4, "est": -5, "cdt": -5, "mdt": -6, "mst": -7, "pdt": -7, "pst": -8,
                                                "jst": 9, "kst": 9, "hkt": 8, "sgt": 8, "awst": 8]

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
