import CivilTime
import ICalendar
import UTF8Text

/// Appointments confirmed in plain text: "Your appointment with Dr. Lee is confirmed for
/// Tuesday, March 12 at 10:30 AM", "Ihr Termin am Donnerstag, 14. März um 15:00 Uhr",
/// "您預約的看診時間為 3月15日（星期五）上午9:30". A date and a time on one line (or the time
/// on the next), a booking word on it or on the two lines before, none of the words that make
/// it something else (a sale, a delivery, a proposal), no question, and a day that is still to
/// come when the mail was sent. These are guesses, and precision matters more than recall: a
/// reminder for a date that does not exist is worse than none.
struct TextAppointments {
    let words: AppointmentWords
    /// The characters month names start with: a date is looked for only at a digit or at one of these.
    private let monthInitials: Set<Character>
    /// Lines are read only where a time may be, on them or on the next.
    private let numbers: TimeAndDateBytes
    /// The words that say which way round the text writes 08/04 (see DayMonthOrder), made
    /// when a date first needs them: most runs read none.
    private let orderWords: OrderWords

    private final class OrderWords {
        let words: AppointmentWords
        lazy var list = words.orderWords()
        init(_ words: AppointmentWords) { self.words = words }
    }

    init(words: AppointmentWords) {
        self.words = words
        monthInitials = Set(words.months.compactMap(\.text.first))
        numbers = TimeAndDateBytes(words: words)
        orderWords = OrderWords(words)
    }

    struct Found {
        var startLocal: String
        var line: String
        var confidence: Double
        var evidence: [String]
    }

    /// A date that would have made an appointment but can be read day first or month first,
    /// with nothing to say which (03/04/2026 from a .com sender in English): left unread.
    struct UnreadDate: Equatable {
        var text: String
        var confidence: Double
    }

    /// The appointments of `text` (the message's new text), for a message sent on day `sent`
    /// (days since 1970).
    func find(in text: String, sent: Int) -> [Found] { read(text, sent: sent).found }

    /// The appointments of `text` and the dates left unread; `senderOrder` is what the mail's
    /// headers and sender say of dates written in digits alone, asked only for such a date.
    func read(_ text: String, sent: Int, senderOrder: () -> DayMonthOrder? = { nil }) -> (found: [Found], unread: [UnreadDate]) {
        var senderSays: DayMonthOrder??
        func sender() -> DayMonthOrder? {
            if senderSays == nil { senderSays = .some(senderOrder()) }
            return senderSays!
        }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var cache: [Int: [Character]] = [:]
        func lowered(_ k: Int) -> [Character] {
            if let c = cache[k] { return c }
            let c = Array(lines[k].trimmingWhitespace.lowercased())
            cache[k] = c
            return c
        }
        var found: [Found] = []
        var unread: [UnreadDate] = []
        for i in lines.indices where lines[i].utf8.contains(where: { $0 &- 0x30 < 10 || $0 == 0xEF }) {  // a digit (or a full-width one)
            let timeNext = i + 1 < lines.count && lines[i + 1].count < 40
            guard numbers.hasTime(lines[i]) || timeNext && numbers.hasTime(lines[i + 1]) else { continue }
            let line = lowered(i)
            // what the lines around say, the same for every date of the line: read once, as a
            // line of a thousand dates must not read them a thousand times
            var contexts: [Int: Context] = [:]
            var written: [Character]?  // the line as written, for the dates left unread
            func context(_ timeLine: Int) -> Context {
                if let known = contexts[timeLine] { return known }
                let text = Array((max(0, i - 2)...timeLine).map(lowered).joined(separator: [" "]))
                let booked = contains(text, any: words.booking)
                    && !contains(line, any: words.not) && !contains(lowered(timeLine), any: words.not)
                    && !isQuestion(line) && !isQuestion(lowered(timeLine))
                let made = Context(text: text, booked: booked, confirmed: booked && contains(text, any: words.confirmed))
                contexts[timeLine] = made
                return made
            }
            for date in dates(in: line) {
                var time = self.time(in: line, around: date.range)
                var timeLine = i
                if time == nil, timeNext {
                    time = self.time(in: lowered(i + 1), around: 0..<0)
                    timeLine = i + 1
                }
                guard let time else { continue }
                let around = context(timeLine)
                guard around.booked else { continue }
                var confidence = 0.5
                var evidence = ["booking_word"]
                if around.confirmed { confidence += 0.2; evidence.append("confirmation_word") }
                if date.weekday != nil { confidence += 0.1; evidence.append("weekday") }
                if date.year != nil { confidence += 0.1; evidence.append("year") }
                let day: Int
                switch read(date, sent: sent, order: { sender() ?? around.order(self) }) {
                case .day(let d): day = d
                case .none: continue
                case .ambiguous:
                    if written == nil { written = Array(lines[i].trimmingWhitespace) }
                    let text = String((written!.count == line.count ? written! : line)[date.range])
                    if !unread.contains(where: { $0.text == text }) { unread.append(UnreadDate(text: text, confidence: confidence)) }
                    continue
                }
                let local = CivilDate.dateText(days: day) + "T" + CivilDate.clockText(seconds: time * 60)
                guard !found.contains(where: { $0.startLocal == local }) else { continue }
                let description = timeLine == i ? lines[i].trimmingWhitespace : lines[i].trimmingWhitespace + "\n" + lines[timeLine].trimmingWhitespace
                found.append(Found(startLocal: local, line: description, confidence: confidence, evidence: evidence))
            }
        }
        return (found, unread)
    }

    /// The lines a date and its time are on and the two before, lowercased, and what they say.
    private final class Context {
        let text: [Character]
        /// A booking word, and none of the words that make it something else, nor a question.
        let booked: Bool
        let confirmed: Bool
        private var textOrder: DayMonthOrder??

        init(text: [Character], booked: Bool, confirmed: Bool) {
            (self.text, self.booked, self.confirmed) = (text, booked, confirmed)
        }

        func order(_ reader: TextAppointments) -> DayMonthOrder? {
            if textOrder == nil { textOrder = .some(reader.order(of: text)) }
            return textOrder!
        }
    }

    /// The order the words of `c` say: those of languages that write one way only ("termin",
    /// "預約"), when they agree.
    private func order(of c: [Character]) -> DayMonthOrder? {
        var said: DayMonthOrder?
        for w in orderWords.list where contains(c, any: [w]) {
            let order: DayMonthOrder = w.value == 1 ? .dayFirst : .monthFirst
            if let said, said != order { return nil }
            said = order
        }
        return said
    }

    // MARK: dates

    struct WrittenDate {
        var range: Range<Int>
        var day: Int, month: Int
        var year: Int?
        var weekday: Int?
        /// Written `2/6`, `2/6/2026` or `02-06-2026`: month first in the US and Taiwan, day first
        /// in Europe (`month` holds the first number, `day` the second).
        var slashed = false
    }

    enum DayReading: Equatable { case day(Int), ambiguous, none }

    /// The day a written date is (see `resolve`); for one written in digits alone, as the first
    /// of these says: a weekday that fits one reading only, a date that can be read one way
    /// only (24/03), `order` (the sender's signals, then the text's words). With none of them
    /// it is ambiguous, when either reading would be a day to come.
    func read(_ d: WrittenDate, sent: Int, order: () -> DayMonthOrder?) -> DayReading {
        guard d.slashed else { return resolve(d, sent: sent).map(DayReading.day) ?? .none }
        var monthFirst = d
        monthFirst.slashed = false
        var dayFirst = monthFirst
        (dayFirst.day, dayFirst.month) = (d.month, d.day)
        func isDate(_ x: WrittenDate) -> Bool { (1...12).contains(x.month) && (1...31).contains(x.day) }
        guard d.day != d.month, isDate(monthFirst), isDate(dayFirst) else {
            return resolve(isDate(monthFirst) ? monthFirst : dayFirst, sent: sent).map(DayReading.day) ?? .none
        }
        let readings = [resolve(monthFirst, sent: sent), resolve(dayFirst, sent: sent)]
        if d.weekday != nil {
            let fitting = readings.compactMap { $0 }
            if fitting.count < 2 { return fitting.first.map(DayReading.day) ?? .none }
        }
        switch order() {
        case .monthFirst: return readings[0].map(DayReading.day) ?? .none
        case .dayFirst: return readings[1].map(DayReading.day) ?? .none
        case nil: return readings.contains { $0 != nil } ? .ambiguous : .none
        }
    }

    /// The day a written date is: in its year, or without one the next such day from the day
    /// the mail was sent. nil for a day gone by (a date without a year up to four months back,
    /// unless its weekday says next year), more than two years away, or on another weekday than
    /// the one written: a wrong weekday is a wrong reading, never a reason to look further.
    func resolve(_ d: WrittenDate, sent: Int) -> Int? {
        guard (1...12).contains(d.month), (1...31).contains(d.day) else { return nil }
        func day(in year: Int) -> Int? {
            let day = CivilDate.days(year: year, month: d.month, day: d.day)
            return CivilDate.date(days: day) == (year, d.month, d.day) ? day : nil  // not 31 April
        }
        var candidate: Int
        if let year = d.year {
            guard let written = day(in: year) else { return nil }
            candidate = written
        } else {
            let sentYear = CivilDate.date(days: sent).year
            guard let thisYear = day(in: sentYear) else { return nil }
            candidate = thisYear
            if thisYear < sent {
                guard let nextYear = day(in: sentYear + 1) else { return nil }
                // a day a few months back with no weekday to say otherwise is one gone by
                // ("your visit on March 2"), not next year's
                if d.weekday == nil, thisYear >= sent - 120 { return nil }
                candidate = nextYear
            }
        }
        guard candidate >= sent, candidate <= sent + 730 else { return nil }
        if let w = d.weekday, Self.weekday(candidate) != w { return nil }
        return candidate
    }

    /// 1 = Monday … 7 = Sunday; day 0 (1970-01-01) was a Thursday.
    static func weekday(_ day: Int) -> Int { ((day % 7 + 7) % 7 + 3) % 7 + 1 }

    func dates(in c: [Character]) -> [WrittenDate] {
        var out: [WrittenDate] = []
        var i = 0
        while i < c.count {
            if c[i].isNumber || monthInitials.contains(c[i]), let d = date(in: c, at: i) {
                var d = d
                d.weekday = weekday(in: c, before: d.range.lowerBound) ?? weekday(in: c, after: d.range.upperBound)
                out.append(d)
                i = d.range.upperBound
            } else {
                i += 1
            }
        }
        return out
    }

    /// A date starting at `i`: `2026-03-12`, `2026年3月15日`, `3月15日`, `14.03.2026`,
    /// `14. März`, `14 de marzo de 2026`, `12 March`, `March 12th, 2026`, `2/6` (with a weekday).
    func date(in c: [Character], at i: Int) -> WrittenDate? {
        // inside a word or a number; Chinese and Japanese write dates right after a word
        if i > 0, c[i - 1].isNumber || c[i - 1].isLetter && c[i - 1].unicodeScalars.first!.value < 0x2E80 { return nil }
        // nor the end of a longer one (the 3/24 of 115/3/24 in an English text)
        if i > 1, c[i - 1] == "/" || c[i - 1] == "-", c[i - 2].isNumber { return nil }
        if let (n, j) = number(c, i, max: 4) {
            // 2026-03-12, 2026/3/24, 2026年3月15日: the year first, then always the month
            if j - i == 4 {
                for separator: Character in ["-", "/"] where at(c, j, separator) {
                    guard let (m, k) = number(c, j + 1, max: 2), at(c, k, separator), let (d, e) = number(c, k + 1, max: 2) else { return nil }
                    return notFollowedByDigit(c, e) ? WrittenDate(range: i..<e, day: d, month: m, year: n) : nil
                }
                if at(c, j, "年"), let (m, k) = number(c, j + 1, max: 2), at(c, k, "月"), let (d, e) = number(c, k + 1, max: 2), at(c, e, "日") {
                    return WrittenDate(range: i..<(e + 1), day: d, month: m, year: n)
                }
                return nil
            }
            // Taiwan's Minguo years (1912 is year 1): 115年3月24日 (after 民國 or not), and
            // 115/3/24 in a Chinese text
            if j - i == 3 {
                guard c[i] != "0" else { return nil }
                if at(c, j, "年"), let (m, k) = number(c, j + 1, max: 2), at(c, k, "月"), let (d, e) = number(c, k + 1, max: 2), at(c, e, "日") {
                    return WrittenDate(range: i..<(e + 1), day: d, month: m, year: n + 1911)
                }
                if at(c, j, "/"), let (m, k) = number(c, j + 1, max: 2), at(c, k, "/"), let (d, e) = number(c, k + 1, max: 2),
                   notFollowedByDigit(c, e), !at(c, e, "/"), isChinese(c) {
                    return WrittenDate(range: i..<e, day: d, month: m, year: n + 1911)
                }
                return nil
            }
            guard j - i <= 2 else { return nil }
            // 2/6（五）, 3/12/2026, 06/05/26, 24-03-2026: which is the month, see read(_:sent:order:)
            if at(c, j, "/") || at(c, j, "-"), let (m, k) = number(c, j + 1, max: 2) {
                let separator = c[j]
                var year: Int?, end = k
                if at(c, k, separator), let (y, e) = number(c, k + 1, max: 4), e - k - 1 == 4 || e - k - 1 == 2 && separator == "/" {
                    (year, end) = (e - k - 1 == 2 ? 2000 + y : y, e)
                }
                // with dashes only with a year: 10-12 is more often a range than a date
                guard separator == "/" || year != nil, notFollowedByDigit(c, end), !at(c, end, separator) else { return nil }
                return WrittenDate(range: i..<end, day: m, month: n, year: year, slashed: true)
            }
            // 3月15日
            if at(c, j, "月"), let (d, e) = number(c, j + 1, max: 2), at(c, e, "日") {
                return WrittenDate(range: i..<(e + 1), day: d, month: n)
            }
            // 14.03.2026, 14.03.
            if at(c, j, "."), let (m, k) = number(c, j + 1, max: 2), at(c, k, ".") {
                if let (y, e) = number(c, k + 1, max: 4), e - k - 1 == 4 || e - k - 1 == 2 {
                    guard notFollowedByDigit(c, e), !at(c, e, ".") else { return nil }
                    return WrittenDate(range: i..<e, day: n, month: m, year: e - k - 1 == 2 ? 2000 + y : y)
                }
                return notFollowedByDigit(c, k + 1) ? WrittenDate(range: i..<(k + 1), day: n, month: m) : nil
            }
            // 14. März, 14 de marzo, 12th March, 1er avril
            var k = j
            for suffix in [".", "st", "nd", "rd", "th", "er"] where starts(c, k, suffix) { k += suffix.count; break }
            k = skipSpaces(c, k)
            if starts(c, k, "de ") { k += 3 }
            if let (month, e) = name(in: c, at: k, from: words.months) {
                let (year, end) = self.year(c, after: e)
                return WrittenDate(range: i..<end, day: n, month: month, year: year)
            }
            return nil
        }
        // March 12, 2026; march 12th
        if let (month, e) = name(in: c, at: i, from: words.months) {
            var k = skipSpaces(c, at(c, e, ".") ? e + 1 : e)
            guard k > e, let (d, j) = number(c, k, max: 2) else { return nil }
            k = j
            for suffix in ["st", "nd", "rd", "th"] where starts(c, k, suffix) { k += 2; break }
            guard k >= c.count || !c[k].isLetter && !c[k].isNumber else { return nil }
            let (year, end) = self.year(c, after: k)
            return WrittenDate(range: i..<end, day: d, month: month, year: year)
        }
        return nil
    }

    /// A year after a day and month: `, 2026`, ` 2026`, ` de 2026`.
    private func year(_ c: [Character], after e: Int) -> (Int?, Int) {
        var k = e
        if at(c, k, ",") { k += 1 }
        k = skipSpaces(c, k)
        if starts(c, k, "de ") { k += 3 }
        if let (y, j) = number(c, k, max: 4), j - k == 4, notFollowedByDigit(c, j), !at(c, j, ":") { return (y, j) }
        return (nil, e)
    }

    /// A weekday name ending a few characters before `start` ("Tuesday, March 12", "le jeudi 14 mars").
    private func weekday(in c: [Character], before start: Int) -> Int? {
        var end = start
        while end > 0, c[end - 1] == " " || c[end - 1] == "," || c[end - 1] == "、" { end -= 1 }
        for w in words.weekdays where end >= w.text.count {
            let s = end - w.text.count
            if starts(c, s, w.text), s == 0 || !c[s - 1].isLetter { return w.value }
        }
        return nil
    }

    /// A weekday right after a date ("3月15日（星期五）", "15日(金)").
    private func weekday(in c: [Character], after end: Int) -> Int? {
        let k = skipSpaces(c, end)
        for w in words.weekdays where starts(c, k, w.text) {
            let e = k + w.text.count
            if e >= c.count || !c[e].isLetter || !w.text.last!.isLetter { return w.value }
        }
        if at(c, k, "(") || at(c, k, "（") {  // 3月15日（星期五）
            let inner = skipSpaces(c, k + 1)
            for w in words.weekdays where starts(c, inner, w.text) { return w.value }
        }
        return nil
    }

    // MARK: times

    /// The first time on the line after the date, else before it, as minutes after midnight:
    /// `10:30 AM`, `15:00 Uhr`, `15h30`, `10 am`, `上午9:30`, `下午3點半`, `午前9時30分`.
    func time(in c: [Character], around date: Range<Int>) -> Int? {
        for range in [date.upperBound..<c.count, 0..<date.lowerBound] {
            for i in range { if let t = time(in: c, at: i) { return t } }
        }
        return nil
    }

    private func time(in c: [Character], at i: Int) -> Int? {
        if i > 0, c[i - 1].isNumber || c[i - 1] == ":" || c[i - 1] == "." { return nil }
        guard let (h, j) = number(c, i, max: 2) else { return nil }
        var minute = 0
        var k = j
        var certain = false  // a separator that only a time has
        if at(c, j, ":"), let (m, e) = number(c, j + 1, max: 2), e - j - 1 == 2 {
            minute = m; k = e; certain = true
            if at(c, k, ":"), let (_, e2) = number(c, k + 1, max: 2) { k = e2 }  // seconds
        } else if at(c, j, "."), let (m, e) = number(c, j + 1, max: 2), e - j - 1 == 2 {
            minute = m; k = e  // 2.20pm, 14.30 Uhr: a time only with the marker after it
        } else if at(c, j, "h"), j + 1 >= c.count || !c[j + 1].isLetter {
            if let (m, e) = number(c, j + 1, max: 2), e - j - 1 == 2 { minute = m; k = e } else { k = j + 1 }
            certain = true
        } else if at(c, j, "時") || at(c, j, "时") || at(c, j, "点") || at(c, j, "點") {
            k = j + 1
            if let (m, e) = number(c, k, max: 2), at(c, e, "分") { minute = m; k = e + 1 } else if at(c, k, "半") { minute = 30; k += 1 }
            certain = true
        }
        guard !(k < c.count && c[k].isNumber) else { return nil }
        var hour = h
        let after = skipSpaces(c, k)
        let markerEnd = i > 0 && c[i - 1] == " " ? i - 1 : i
        // a marker after the time ("10 am"), or before it in the languages that write it so
        // ("上午9:30"; not "am" before a time: German's "am" is "on")
        func marked(_ list: [AppointmentWords.Word]) -> Bool {
            name(in: c, at: after, from: list) != nil
                || list.contains { !$0.text.last!.isASCII && starts(c, markerEnd - $0.text.count, $0.text) }
        }
        if marked(words.pm) {
            if hour < 12 { hour += 12 }
            certain = true
        } else if marked(words.am) {
            if hour == 12 { hour = 0 }
            certain = true
        } else if starts(c, after, "uhr") {
            certain = true
        }
        guard certain, hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    // MARK: characters

    private func number(_ c: [Character], _ i: Int, max: Int) -> (Int, Int)? {
        var v = 0, k = i
        while k < c.count, k - i < max, let d = c[k].wholeNumberValue, c[k].isASCII || c[k].unicodeScalars.first!.value >= 0xFF10 {
            v = v * 10 + d
            k += 1
        }
        return k > i ? (v, k) : nil
    }

    private func notFollowedByDigit(_ c: [Character], _ k: Int) -> Bool { k >= c.count || !c[k].isNumber }
    private func at(_ c: [Character], _ k: Int, _ ch: Character) -> Bool { k < c.count && c[k] == ch }
    private func starts(_ c: [Character], _ k: Int, _ s: String) -> Bool { starts(c, k, Array(s)) }
    private func starts(_ c: [Character], _ k: Int, _ s: [Character]) -> Bool {
        guard k >= 0, k + s.count <= c.count else { return false }
        for n in s.indices where c[k + n] != s[n] { return false }
        return true
    }
    private func skipSpaces(_ c: [Character], _ k: Int) -> Int {
        var k = k
        while k < c.count, c[k] == " " || c[k] == "\u{3000}" { k += 1 }
        return k
    }

    /// The value of the longest name of `list` written at `k` as a whole word.
    private func name(in c: [Character], at k: Int, from list: [AppointmentWords.Word]) -> (Int, Int)? {
        for w in list where starts(c, k, w.text) {
            let e = k + w.text.count
            if e < c.count, c[e].isLetter, w.text.last!.isLetter, c[e].isASCII || !w.text.last!.isASCII { continue }
            return (w.value, e)
        }
        return nil
    }

    /// Whether one of the words is in `c`, starting a word (a compound word may go on after it).
    private func contains(_ c: [Character], any list: [AppointmentWords.Word]) -> Bool {
        guard !c.isEmpty else { return false }
        for w in list where w.text.count <= c.count {
            for s in 0...(c.count - w.text.count) where c[s] == w.text[0] && starts(c, s, w.text) {
                if s > 0, c[s - 1].isLetter, w.text[0].isLetter, w.text[0].isASCII || c[s - 1].isASCII { continue }
                return true
            }
        }
        return false
    }

    private func isQuestion(_ c: [Character]) -> Bool { c.last == "?" || c.last == "？" }

    /// Whether a line is Chinese: Han characters and no kana (Japanese writes Han too).
    private func isChinese(_ c: [Character]) -> Bool {
        var han = false
        for ch in c {
            let v = ch.unicodeScalars.first!.value
            if (0x3040...0x30FF).contains(v) { return false }
            if (0x4E00...0x9FFF).contains(v) { han = true }
        }
        return han
    }
}
