import UTF8Text

/// Mail that moves or cancels an appointment in words: "Previous appointment: Tuesday 17 March
/// at 10:40 - cancelled. New appointment: Thursday 19 March at 15:20", "Ihr Termin wurde
/// verschoben auf …", "您的預約已改至…", "予約をキャンセルいたしました". What the appointments
/// TextAppointments read from a mail come to: the words (AppointmentWords' `cancelled`,
/// `moved`, `previous`, `new`) are looked for on each appointment's lines, the line before and
/// the subject. The calendar applies the change (EventStore's text changes).
struct TextChanges {
    let words: AppointmentWords

    enum Change: Equatable {
        case none
        case cancelled
        /// A new time, and the old one when the mail states it (its wall clock).
        case moved(replaces: String?)
    }

    struct Read {
        var found: TextAppointments.Found
        var change: Change
    }

    /// A move is said by a `moved` word, or by labels on two times: one appointment comes of it, the new
    /// time, replacing the old one when it is there too. Which is which: the label nearest
    /// before each date ("New appointment:", "变更后：", "verschoben auf"), else the order
    /// the languages write them in ("from X to Y", "X から Y に", "由X改至Y"), old first.
    /// Otherwise a `cancelled` word cancels every appointment read; without one they are bookings.
    func read(_ found: [TextAppointments.Found], in text: String, subject: String?) -> [Read] {
        guard !found.isEmpty else { return [] }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        func lowered(_ k: Int) -> [Character] { Array(lines[k].trimmingWhitespace.lowercased()) }
        let subject = Array((subject ?? "").lowercased())
        let contexts = found.map { f in Array((max(0, f.lineIndex - 1)...f.timeLineIndex).map(lowered).joined(separator: [" "])) }
        let labels = found.map { label(of: $0, lowered) }
        // a label alone makes a move only where it tells two times apart: "your new appointment
        // is on …" may be a second booking, and "to book a new appointment" a footer
        let cancelled = has(subject, words.cancelled) || contexts.contains { has($0, words.cancelled) }
        // ("Previous appointment: Tuesday 17 March - cancelled. New appointment: …": the old
        // time without a clock is no appointment read, and its word is not the new one's)
        let moved = has(subject, words.moved) || contexts.contains { has($0, words.moved) }
            || found.count > 1 && labels.contains { $0 != .none } || cancelled && labels.contains(.new)
        if moved {
            if found.count == 1, labels[0] == .old {
                // "your appointment on X has been rescheduled" with no new time: the old one is off
                return [Read(found: found[0], change: .cancelled)]
            }
            let new = labels.lastIndex(of: .new) ?? found.count - 1
            let old = labels.lastIndex(of: .old).flatMap { $0 == new ? nil : $0 } ?? found.indices.first { $0 != new }
            return found.indices.compactMap { k -> Read? in
                if k == new { return Read(found: found[k], change: .moved(replaces: old.map { found[$0].startLocal })) }
                return k == old ? nil : Read(found: found[k], change: .none)
            }
        }
        return found.map { Read(found: $0, change: cancelled ? .cancelled : .none) }
    }

    /// A day, or half of one, a mail cancels with no time: a clinic's session closed
    /// ("3月31日（二）上午門診停診", "Die Sprechstunde am Freitag, 20. März entfällt").
    struct Closure {
        var day: Int
        /// 0 the morning, 1 the afternoon (an am or pm word on the line), nil the whole day.
        var half: Int?
        var line: String
        var confidence: Double
        var evidence: [String]
    }

    /// The closures of a mail in which no appointment with a time was read: a date, a
    /// `cancelled` word and a booking word on one line (the booking word may be on the line
    /// before), none of the words that make it something else, no question.
    func closures(in text: String, sent: Int, reader: TextAppointments) -> [Closure] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        // "am" is German's "on": only the words that say the half of a day alone
        let am = words.am.filter { $0.text.count > 2 || !$0.text[0].isASCII }
        let pm = words.pm.filter { $0.text.count > 2 || !$0.text[0].isASCII }
        var out: [Closure] = []
        for (i, line) in lines.enumerated() where line.utf8.contains(where: { $0 &- 0x30 < 10 || $0 == 0xEF }) {
            let c = Array(line.trimmingWhitespace.lowercased())
            guard has(c, words.cancelled), c.last != "?", c.last != "？", !has(c, words.not) else { continue }
            guard has(c, words.booking) || i > 0 && has(Array(lines[i - 1].lowercased()), words.booking) else { continue }
            for date in reader.dates(in: c) {
                guard let day = reader.resolve(date, sent: sent), !out.contains(where: { $0.day == day }) else { continue }
                var evidence = ["booking_word", "cancellation_word"]
                var confidence = 0.7
                if date.weekday != nil { confidence += 0.1; evidence.append("weekday") }
                if date.year != nil { confidence += 0.1; evidence.append("year") }
                let (morning, afternoon) = (has(c, am), has(c, pm))
                out.append(Closure(day: day, half: morning == afternoon ? nil : morning ? 0 : 1, line: String(line.trimmingWhitespace),
                                   confidence: confidence, evidence: evidence))
            }
        }
        return out
    }

    enum Label { case none, old, new }

    /// The label nearest before the date: on its line before it, else the last on the line
    /// before when that line ends with a colon ("New appointment:").
    private func label(of f: TextAppointments.Found, _ lowered: (Int) -> [Character]) -> Label {
        func last(in c: [Character], before end: Int) -> Label {
            let old = lastMatch(of: words.previous, in: c, before: end)
            let new = lastMatch(of: words.new, in: c, before: end)
            switch (old, new) {
            case (nil, nil): return .none
            case (let o?, let n?): return o > n ? .old : .new
            case (.some, nil): return .old
            case (nil, .some): return .new
            }
        }
        let own = last(in: lowered(f.lineIndex), before: f.column)
        guard own == .none, f.lineIndex > 0 else { return own }
        let before = lowered(f.lineIndex - 1)
        guard before.last == ":" || before.last == "：" else { return .none }
        return last(in: before, before: before.count)
    }

    private func has(_ c: [Character], _ list: [AppointmentWords.Word]) -> Bool { lastMatch(of: list, in: c, before: c.count) != nil }

    /// Where the last of the words that ends by `end` starts in `c`, at the start of a word
    /// (Chinese and Japanese words anywhere).
    private func lastMatch(of list: [AppointmentWords.Word], in c: [Character], before end: Int) -> Int? {
        var best: Int?
        for w in list where !w.text.isEmpty && w.text.count <= end {
            var s = end - w.text.count
            while s >= 0, s > (best ?? -1) {
                if c[s] == w.text[0], c[s..<(s + w.text.count)].elementsEqual(w.text),
                   s == 0 || !(c[s - 1].isLetter && w.text[0].isLetter && (w.text[0].isASCII || c[s - 1].isASCII)) {
                    best = s
                    break
                }
                s -= 1
            }
        }
        return best
    }
}
