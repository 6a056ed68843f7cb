import BodyText
import UTF8Text

/// What reading text confirmations needs, made once per run.
final class TextReader {
    let appointments: TextAppointments
    let changes: TextChanges
    let extractor: Extractor
    private let bookingWords: WordFinder
    private let monthWords: WordFinder
    private let cancelledWords: WordFinder
    private let numbers: TimeAndDateBytes

    init(words: AppointmentWords, extractor: Extractor) {
        appointments = TextAppointments(words: words)
        changes = TextChanges(words: words)
        self.extractor = extractor
        bookingWords = WordFinder(words.bookingBytes)
        monthWords = WordFinder(words.monthBytes)
        cancelledWords = WordFinder(words.cancelledBytes)
        numbers = TimeAndDateBytes(words: words)
    }

    /// A look at the bytes as written before anything is decoded: a time, with a booking word
    /// and a date near it. Nearly all mail fails it, so it reads each byte once and looks for
    /// words only around the times.
    func mayHoldAppointment(_ raw: ArraySlice<UInt8>) -> Bool {
        raw.withUnsafeBufferPointer { b in
            let (times, dates) = numbers.timesAndDates(b)
            guard !times.isEmpty else {
                // a day cancelled with no time ("3月31日（二）上午門診停診"): a cancelled word
                // and a booking word near a date with 月 (dates written with "/", "." or "-"
                // alone are in most mail: numbers, prices, links)
                let months = dates.filter { b[$0] == 0xE6 }
                guard !months.isEmpty else { return false }
                let windows = Self.windows(around: months, in: b)
                return windows.contains { cancelledWords.occurs(in: b, $0) && bookingWords.occurs(in: b, $0) }
            }
            // a booking word and a date within a few lines of a time ("I booked a table for 5pm
            // on Friday" and quoted headers' "at 10:30" are common; they have no date)
            let windows = Self.windows(around: times, in: b)
            guard windows.contains(where: { bookingWords.occurs(in: b, $0) }) else { return false }
            // a month's name counts with a number beside it ("March 20", "20 de marzo"): alone,
            // "may", "mar" and "dec" are in half the mail
            func besideNumber(_ word: Range<Int>) -> Bool {
                (max(0, word.lowerBound - 5)..<word.lowerBound).contains { ASCII.isDigit(b[$0]) }
                    || (word.upperBound..<min(b.count, word.upperBound + 5)).contains { ASCII.isDigit(b[$0]) }
            }
            return dates.contains { d in times.contains { abs($0 - d) < Self.near } }
                || windows.contains { monthWords.occurs(in: b, $0, accept: besideNumber) }
        }
    }

    static let near = 400

    /// Whether a word that cancels is on the line of a date written in digits, before the
    /// lines are read for a day cancelled with no time: the bytes of those lines only (a pass
    /// over the whole text cost 4% of event-extract's time on a generated mailbox).
    func mayCancel(_ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { b in
            let newline = UInt8(ascii: "\n")
            var checkedTo = 0
            for d in numbers.timesAndDates(b).dates where d >= checkedTo {
                var start = d, end = d
                while start > max(0, d - 200), b[start - 1] != newline { start -= 1 }
                while end < min(b.count, d + 200), b[end] != newline { end += 1 }
                if cancelledWords.occurs(in: b, max(start, checkedTo)..<end) { return true }
                checkedTo = end
            }
            return false
        }
    }

    /// The bytes where a time's booking word and date may be: from `near` before it to the end
    /// of its line (the reader wants them on the time's line or the lines before), joined where
    /// they overlap. `b` is text, or a JSON string as written whose line ends are the two bytes `\\n`.
    static func windows(around times: [Int], in b: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var windows: [Range<Int>] = []
        for t in times {
            var end = t
            while end < min(b.count, t + 200), b[end] != UInt8(ascii: "\n"),
                  !(b[end] == UInt8(ascii: "\\") && end + 1 < b.count && b[end + 1] == UInt8(ascii: "n")) { end += 1 }
            let w = max(0, t - near)..<end
            if let last = windows.last, last.upperBound >= w.lowerBound {
                windows[windows.count - 1] = last.lowerBound..<max(last.upperBound, w.upperBound)
            } else {
                windows.append(w)
            }
        }
        return windows
    }
}
