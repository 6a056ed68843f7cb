import CivilTime
import UnicodeServices

/// What a notice says happened to its parcel, when, and when it is expected.
public struct ShipmentStatus: Equatable, Sendable {
    /// The statuses, AfterShip's with `picked_up` and `returned` split out, and `customs_hold`
    /// (AfterShip's exception sub-status of a parcel held for customs or duty).
    public static let all = ["info_received", "in_transit", "out_for_delivery", "available_for_pickup", "attempt_failed",
                             "delivered", "picked_up", "returned", "exception", "customs_hold"]
    public var status: String?
    /// RFC 3339 UTC.
    public var time: String?
    /// `YYYY-MM-DD`.
    public var expectedDelivery: String?

    public init(status: String? = nil, time: String? = nil, expectedDelivery: String? = nil) {
        self.status = status
        self.time = time
        self.expectedDelivery = expectedDelivery
    }
}

/// When a message was sent and in which zone its carrier's (or else its own) local times are
/// written.
struct MailClock {
    /// The message's date, seconds since 1970 (UTC); nil when unknown.
    var epoch: Int?
    /// Minutes east of UTC in which the text's local times are read.
    var offsetMinutes: Int

    /// The local calendar day of the mail, as days since 1970.
    var localDay: Int? { epoch.map { CivilDate.split($0 + offsetMinutes * 60).days } }
}

/// "+08:00", "-0700" → minutes east of UTC.
func utcOffsetMinutes(_ s: String) -> Int? {
    let b = Array(s.utf8).filter { $0 != UInt8(ascii: ":") }
    guard b.count == 5, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[1...].allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
    let v = b[1...].map { Int($0 - 0x30) }
    let minutes = (v[0] * 10 + v[1]) * 60 + v[2] * 10 + v[3]
    return b[0] == UInt8(ascii: "-") ? -minutes : minutes
}

/// The zone of an RFC 5322 Date header ("Thu, 5 Mar 2026 08:02:00 +0800"), in minutes east of UTC.
func dateHeaderOffset(_ header: String) -> Int? {
    for token in header.split(separator: " ").reversed() {
        let t = token.trimmingPrefix("(")
        if let m = utcOffsetMinutes(String(t)) { return m }
        if ["GMT", "UT", "UTC", "Z"].contains(String(t)) { return 0 }
    }
    return nil
}

/// Reads the status phrases of statuses.json and the dates around them.
final class StatusReader {
    private let phrases: [UInt16: [(word: [UInt16], status: Int?)]]
    /// The statuses and readings, surest first; `names[i]` is the status reported for `precedence[i]`.
    private let precedence: [String]
    private let names: [String]
    private let conditionsBefore: [[UInt16]]
    private let conditionsInSentence: [[UInt16]]
    private let conditionsAfter: [[UInt16]]
    /// Precedence indices whose phrases conditions do not touch.
    private let unconditional: Set<Int>
    private let pickupPlaces: [[UInt16]]
    private let delivered: Int?
    private let availableForPickup: Int?
    private let expectedLabels: [[UInt16]]
    private let otherLabels: [[UInt16]]

    init(specs: CarrierSpecs) {
        var precedence = specs.statusPrecedence
        // a reading the precedence leaves out goes just before its status
        for (reading, status) in specs.statusReadings.sorted(by: { $0.key < $1.key }) where !precedence.contains(reading) {
            precedence.insert(reading, at: precedence.firstIndex(of: status) ?? precedence.count)
        }
        for status in ShipmentStatus.all where !precedence.contains(status) { precedence.append(status) }
        self.precedence = precedence
        names = precedence.map { specs.statusReadings[$0] ?? $0 }
        var phrases: [UInt16: [(word: [UInt16], status: Int?)]] = [:]
        for (phrase, status) in specs.statusPhrases {
            let word = Array(phrase.utf16)
            guard let first = word.first else { continue }
            phrases[first, default: []].append((word, status.flatMap { precedence.firstIndex(of: $0) }))
        }
        // longest first, so the first that matches at a place is the longest
        self.phrases = phrases.mapValues { $0.sorted { $0.word.count > $1.word.count } }
        conditionsBefore = specs.conditionsBefore.map { Array($0.utf16) }.filter { !$0.isEmpty }
        conditionsInSentence = specs.conditionsInSentence.map { Array($0.utf16) }.filter { !$0.isEmpty }
        conditionsAfter = specs.conditionsAfter.map { Array($0.utf16) }.filter { !$0.isEmpty }
        unconditional = Set(precedence.indices.filter { specs.unconditionalStatuses.contains(precedence[$0]) })
        pickupPlaces = specs.pickupPlaces.map { Array($0.utf16) }.filter { !$0.isEmpty }
        delivered = precedence.firstIndex(of: "delivered")
        availableForPickup = precedence.firstIndex(of: "available_for_pickup")
        expectedLabels = specs.expectedLabels.map { Array($0.utf16) }
        otherLabels = specs.otherDateLabels.map { Array($0.utf16) }
    }

    /// The status a message states: the surest of its subject's, else of its text's; the time
    /// written on a line that states it; the expected delivery date.
    func read(text: [UInt16], lowered: [UInt16], clock: MailClock) -> ShipmentStatus {
        let subjectEnd = lowered.firstIndex(of: 0x0A) ?? lowered.count
        // the phrases, longest at each place, left to right
        var found: [(range: Range<Int>, status: Int)] = []
        var i = 0
        while i < lowered.count {
            var matched: (Int, Int?)? = nil
            if let candidates = phrases[lowered[i]] {
                for (word, status) in candidates where i + word.count <= lowered.count
                    && lowered[i..<(i + word.count)].elementsEqual(word) && isWordBoundary(lowered, i, i + word.count, word) {
                    matched = (word.count, status)
                    break
                }
            }
            if let (length, status) = matched {
                if var status, unconditional.contains(status) || !isConditional(lowered, i..<(i + length)) {
                    if status == delivered, let availableForPickup, waitsAtAPlace(lowered, i..<(i + length)) { status = availableForPickup }
                    found.append((i..<(i + length), status))
                }
                i += length
            } else {
                i += 1
            }
        }
        var result = ShipmentStatus()
        let inSubject = found.filter { $0.range.lowerBound < subjectEnd }
        if let best = (inSubject.isEmpty ? found : inSubject).map(\.status).min() {
            result.status = names[best]
            let places = found.filter { $0.status == best }.map(\.range.lowerBound)
            result.time = statusTime(text: text, lowered: lowered, places: places, clock: clock)
        }
        result.expectedDelivery = expected(text: text, lowered: lowered, clock: clock)
        if result.expectedDelivery == nil, result.status == "out_for_delivery", let day = clock.localDay {
            result.expectedDelivery = CivilDate.dateText(days: day)
        }
        return result
    }

    // MARK: a phrase in its clause

    /// The clause around a phrase: from the punctuation or line break before it to the one after.
    private func clause(_ lowered: [UInt16], _ phrase: Range<Int>, reach: Int, ends: (UInt16) -> Bool = isClauseEnd) -> (before: Range<Int>, after: Range<Int>) {
        var start = phrase.lowerBound
        while start > 0 && phrase.lowerBound - start < reach && !ends(lowered[start - 1]) { start -= 1 }
        var end = phrase.upperBound
        while end < lowered.count && end - phrase.upperBound < reach && !ends(lowered[end]) { end += 1 }
        return (start..<phrase.lowerBound, phrase.upperBound..<end)
    }

    /// Whether a condition word comes earlier in the phrase's clause, or right after it: "if
    /// nobody home", "逾期將退回", "保管期限を過ぎますと、差出人へ返送いたします".
    private func isConditional(_ lowered: [UInt16], _ phrase: Range<Int>) -> Bool {
        let (before, _) = clause(lowered, phrase, reach: 60)
        for word in conditionsBefore where word.count <= before.count {
            if contains(lowered, before, word) { return true }
        }
        let (sentence, _) = clause(lowered, phrase, reach: 80, ends: isSentenceEnd)
        for word in conditionsInSentence where word.count <= sentence.count {
            if contains(lowered, sentence, word) { return true }
        }
        var after = phrase.upperBound
        if after < lowered.count && lowered[after] == 0x20 { after += 1 }
        for word in conditionsAfter where lowered[after...].starts(with: word) { return true }
        return false
    }

    /// Whether the clause of a "delivered" phrase names a store, locker or post office.
    private func waitsAtAPlace(_ lowered: [UInt16], _ phrase: Range<Int>) -> Bool {
        let (before, after) = clause(lowered, phrase, reach: 40)
        return pickupPlaces.contains { contains(lowered, before, $0) || contains(lowered, after, $0) }
    }

    private func contains(_ lowered: [UInt16], _ range: Range<Int>, _ word: [UInt16]) -> Bool {
        guard word.count <= range.count else { return false }
        for j in range.lowerBound...(range.upperBound - word.count)
        where lowered[j] == word[0] && lowered[j..<(j + word.count)].elementsEqual(word) && isWordBoundary(lowered, j, j + word.count, word) {
            return true
        }
        return false
    }

    // MARK: dates

    enum DateKind { case stated, expected, other }

    struct WrittenDate {
        var range: Range<Int>
        var day: Int
        /// Seconds after local midnight, when a time is written with the date.
        var seconds: Int?
    }

    private func statusTime(text: [UInt16], lowered: [UInt16], places: [Int], clock: MailClock) -> String? {
        guard !places.isEmpty else { return nil }
        var best: (distance: Int, date: WrittenDate)?
        for date in dates(in: text, clock: clock) where kind(of: date, lowered) == .stated {
            for p in places where sameLine(lowered, p, date.range.lowerBound) {
                let distance = abs(p - date.range.lowerBound)
                if best == nil || distance < best!.distance { best = (distance, date) }
            }
        }
        guard let date = best?.date else { return nil }
        let epoch = date.day * 86400 + (date.seconds ?? 0) - clock.offsetMinutes * 60
        // a status that happened cannot be told before it happens: a later date is a plan
        if let sent = clock.epoch, epoch > sent + 3600 { return nil }
        return CivilDate.rfc3339(epoch)
    }

    private func expected(text: [UInt16], lowered: [UInt16], clock: MailClock) -> String? {
        for date in dates(in: text, clock: clock) where kind(of: date, lowered) == .expected {
            return CivilDate.dateText(days: date.day)
        }
        return nil
    }

    /// What the words just before a date (on its line) make of it, and the words after it
    /// ("前", "まで", "到期": a deadline).
    private func kind(of date: WrittenDate, _ lowered: [UInt16]) -> DateKind {
        var end = date.range.upperBound
        while end < lowered.count && (lowered[end] == 0x20 || lowered[end] == 0x3000) { end += 1 }
        for after in ["前", "以前", "之前", "まで", "到期", "止", "为止", "為止"] where lowered[end...].starts(with: after.utf16) {
            return .other
        }
        var start = date.range.lowerBound
        while start > 0 && date.range.lowerBound - start < 32 && lowered[start - 1] != 0x0A { start -= 1 }
        var bestEnd = -1
        var kind = DateKind.stated
        for (labels, k) in [(expectedLabels, DateKind.expected), (otherLabels, DateKind.other)] {
            for label in labels where label.count <= date.range.lowerBound - start {
                var j = start
                while j + label.count <= date.range.lowerBound {
                    if lowered[j..<(j + label.count)].elementsEqual(label) && isWordBoundary(lowered, j, j + label.count, label) {
                        let e = j + label.count
                        if e > bestEnd || (e == bestEnd && k == .expected) { bestEnd = e; kind = k }
                    }
                    j += 1
                }
            }
        }
        return kind
    }

    private func sameLine(_ lowered: [UInt16], _ a: Int, _ b: Int) -> Bool {
        let (lo, hi) = a < b ? (a, b) : (b, a)
        return !lowered[lo..<hi].contains(0x0A)
    }

    private let numeric = TextPattern(known: #"(?<roc>民國\s*)?(?<y>[0-9]{3,4})\s*[/.\-年]\s*(?<m>[0-9]{1,2})\s*[/.\-月]\s*(?<d>[0-9]{1,2})\s*日?"#)
    private let american = TextPattern(known: #"(?<m>[0-9]{1,2})/(?<d>[0-9]{1,2})/(?<y>20[0-9]{2})"#)
    private let english = TextPattern(known: #"(?<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?<d>[0-9]{1,2})(?:st|nd|rd|th)?(?:,?\s+(?<y>20[0-9]{2}))?"#, caseInsensitive: true)
    private let monthDay = TextPattern(known: #"(?<m>[0-9]{1,2})\s*(?:/|月)\s*(?<d>[0-9]{1,2})\s*日?"#)
    private let today = TextPattern(known: #"today|今日|本日|今天"#, caseInsensitive: true)
    private let clockTime = TextPattern(known: #"^[\s,，]*(?:at\s+|@\s*)?(?<h>[0-9]{1,2})\s*(?::|：|時)\s*(?<mi>[0-9]{2})(?::[0-9]{2})?\s*分?\s*(?<ap>[ap]\.?\s?m\.?)?"#, caseInsensitive: true)
    private let clockBefore = TextPattern(known: #"(?<h>[0-9]{1,2}):(?<mi>[0-9]{2})\s*(?<ap>[ap]\.?\s?m\.?)?\s+on\s+(?:[a-z]+,?\s+)?$"#, caseInsensitive: true)
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The dates written in the text, with their times, in order; a later pattern's match that
    /// overlaps an earlier one's is left out.
    func dates(in text: [UInt16], clock: MailClock) -> [WrittenDate] {
        var out: [WrittenDate] = []
        func string(_ p: TextPattern, _ m: TextPattern.Match, _ name: String) -> String? {
            p.group(named: name).flatMap { $0 < m.groups.count ? m.groups[$0] : nil }.map { String(decoding: text[$0], as: UTF16.self) }
        }
        func add(_ range: Range<Int>, year: Int?, month: Int, day: Int) {
            guard (1...12).contains(month), (1...31).contains(day) else { return }
            // digits must not run on into the date
            if range.lowerBound > 0, text[range.lowerBound - 1] &- 0x30 < 10 { return }
            if range.upperBound < text.count, text[range.upperBound] &- 0x30 < 10 { return }
            guard !out.contains(where: { $0.range.overlaps(range) }) else { return }
            var y = year
            if y == nil {
                // the year that puts the date nearest the mail's
                guard let mailDay = clock.localDay else { return }
                let mailYear = CivilDate.date(days: mailDay).year
                y = [mailYear - 1, mailYear, mailYear + 1].min { abs(CivilDate.days(year: $0, month: month, day: day) - mailDay) < abs(CivilDate.days(year: $1, month: month, day: day) - mailDay) }
            }
            guard let year = y, (1990...2100).contains(year) else { return }
            out.append(WrittenDate(range: range, day: CivilDate.days(year: year, month: month, day: day), seconds: nil))
        }
        numeric.forEachMatch(in: text) { m in
            guard var y = Int(string(numeric, m, "y") ?? ""), let mo = Int(string(numeric, m, "m") ?? ""),
                  let d = Int(string(numeric, m, "d") ?? "") else { return true }
            let written = string(numeric, m, "y") ?? ""
            if written.count == 3 { y += 1911 } else if written.count != 4 { return true }
            add(m.range, year: y, month: mo, day: d)
            return true
        }
        american.forEachMatch(in: text) { m in
            if let y = Int(string(american, m, "y") ?? ""), let mo = Int(string(american, m, "m") ?? ""), let d = Int(string(american, m, "d") ?? "") {
                add(m.range, year: y, month: mo, day: d)
            }
            return true
        }
        english.forEachMatch(in: text) { m in
            if m.range.lowerBound > 0, isLetter(text[m.range.lowerBound - 1]) { return true }
            if let mon = string(english, m, "mon").map({ $0.lowercased() }), let mo = Self.months.firstIndex(of: mon),
               let d = Int(string(english, m, "d") ?? "") {
                add(m.range, year: Int(string(english, m, "y") ?? ""), month: mo + 1, day: d)
            }
            return true
        }
        monthDay.forEachMatch(in: text) { m in
            // not a fraction or a part of a longer numeric date
            if m.range.upperBound < text.count, text[m.range.upperBound] == UInt16(UInt8(ascii: "/")) { return true }
            if m.range.lowerBound > 0, text[m.range.lowerBound - 1] == UInt16(UInt8(ascii: "/")) { return true }
            if let mo = Int(string(monthDay, m, "m") ?? ""), let d = Int(string(monthDay, m, "d") ?? "") {
                add(m.range, year: nil, month: mo, day: d)
            }
            return true
        }
        if let mailDay = clock.localDay {
            today.forEachMatch(in: text) { m in
                if !out.contains(where: { $0.range.overlaps(m.range) }) {
                    out.append(WrittenDate(range: m.range, day: mailDay, seconds: nil))
                }
                return true
            }
        }
        // a time written just after the date ("2026/03/06 11:35", "03/26/2026 at 12:07 P.M."),
        // or just before it ("at 2:14 pm on March 3, 2026")
        for k in out.indices {
            let r = out[k].range
            let after = Array(text[r.upperBound..<min(text.count, r.upperBound + 24)])
            if let m = clockTime.firstMatch(in: after), let s = seconds(clockTime, m, after) {
                out[k].seconds = s
                out[k].range = r.lowerBound..<(r.upperBound + m.range.upperBound)
                continue
            }
            let before = Array(text[max(0, r.lowerBound - 28)..<r.lowerBound])
            if let m = clockBefore.firstMatch(in: before), let s = seconds(clockBefore, m, before) {
                out[k].seconds = s
            }
        }
        return out.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    private func seconds(_ p: TextPattern, _ m: TextPattern.Match, _ text: [UInt16]) -> Int? {
        func string(_ name: String) -> String? {
            p.group(named: name).flatMap { $0 < m.groups.count ? m.groups[$0] : nil }.map { String(decoding: text[$0], as: UTF16.self) }
        }
        guard var h = Int(string("h") ?? ""), h < 24 else { return nil }
        let mi = Int(string("mi") ?? "") ?? 0
        guard mi < 60 else { return nil }
        if let ap = string("ap")?.lowercased() {
            guard h <= 12 else { return nil }
            if ap.hasPrefix("p") && h < 12 { h += 12 }
            if ap.hasPrefix("a") && h == 12 { h = 0 }
        }
        return h * 3600 + mi * 60
    }
}

@inline(__always) private func isLetter(_ c: UInt16) -> Bool { (c | 0x20) &- 0x61 < 26 }

/// Punctuation that ends a sentence: full stops, exclamation and question marks, semicolons,
/// line breaks (ASCII, CJK and full-width).
@inline(__always) private func isSentenceEnd(_ c: UInt16) -> Bool {
    switch c {
    case 0x0A, 0x2E, 0x21, 0x3F, 0x3B, 0x3002, 0xFF01, 0xFF1F, 0xFF1B, 0xFF0E: return true
    default: return false
    }
}

/// Punctuation that ends a clause: sentence ends, commas, semicolons, line breaks (ASCII,
/// CJK and full-width).
@inline(__always) private func isClauseEnd(_ c: UInt16) -> Bool {
    switch c {
    case 0x0A, 0x2E, 0x21, 0x3F, 0x2C, 0x3B, 0x3002, 0x3001, 0xFF0C, 0xFF01, 0xFF1F, 0xFF1B, 0xFF0E: return true
    default: return false
    }
}

/// An ASCII phrase matches whole words: no letter or digit touches its ends.
private func isWordBoundary(_ text: [UInt16], _ start: Int, _ end: Int, _ word: [UInt16]) -> Bool {
    func alnum(_ c: UInt16) -> Bool { isLetter(c) || c &- 0x30 < 10 }
    if let f = word.first, f < 0x80, alnum(f), start > 0, alnum(text[start - 1]) { return false }
    if let l = word.last, l < 0x80, alnum(l), end < text.count, alnum(text[end]) { return false }
    return true
}
