import UTF8Text

/// Where a time or a date written in digits may be, read from UTF-8 bytes before anything is
/// decoded: the text reader's cheap look (a superset of what TextAppointments reads).
struct TimeAndDateBytes {
    /// What may follow a time's digits, lowercased: "uhr", and the am/pm words ("pm", "du soir").
    private let markers: [[UInt8]]
    /// The bytes markers start with, in either case: most bytes after a number start none.
    private var markerInitials = [Bool](repeating: false, count: 256)

    init(words: AppointmentWords) {
        markers = [Array("uhr".utf8)] + (words.am + words.pm).map(AppointmentWords.lowercasedBytes)
        for m in markers where !m.isEmpty {
            markerInitials[Int(m[0])] = true
            if m[0] &- 0x61 < 26 { markerInitials[Int(m[0] & ~0x20)] = true }
        }
    }

    /// The places of times and dates (at most a few hundred of each), in one pass: only a byte
    /// after a digit is looked at, and eight bytes without a digit are passed over at once.
    func timesAndDates(_ b: UnsafeBufferPointer<UInt8>, maxTimes: Int = 500) -> (times: [Int], dates: [Int]) {
        var times: [Int] = [], dates: [Int] = []
        var i = 0
        while i < b.count, times.count < maxTimes {
            if i + 8 <= b.count, !Self.hasDigit(UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self)) {
                i += 8
                continue
            }
            if ASCII.isDigit(b[i]), i + 1 < b.count, !ASCII.isDigit(b[i + 1]) {
                if mayStartTime(b, i + 1) {
                    times.append(i + 1)
                } else if dates.count < 500, Self.mayStartNumericDate(b, i + 1) {
                    dates.append(i + 1)
                }
            }
            i += 1
        }
        return (times, dates)
    }

    /// Whether a time may be written in `bytes` (a line).
    func hasTime(_ line: Substring) -> Bool {
        func found(_ b: UnsafeBufferPointer<UInt8>) -> Bool { !timesAndDates(b, maxTimes: 1).times.isEmpty }
        return line.utf8.withContiguousStorageIfAvailable(found) ?? Array(line.utf8).withUnsafeBufferPointer(found)
    }

    /// Whether one of the eight bytes is an ASCII digit: a byte is one when its high nibble is
    /// 3 and its low nibble, plus 6, stays under 16; such a byte is zero in `x`.
    private static func hasDigit(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x = ((w & (0xF0 &* ones)) ^ (0x30 &* ones)) | (((w & (0x0F &* ones)) &+ (0x06 &* ones)) & (0x10 &* ones))
        return (x &- ones) & ~x & (0x80 &* ones) != 0
    }

    /// After a digit, a date written in digits may go on here: `3/12`, `14.03.`, `2026-03-12`, `3月`.
    private static func mayStartNumericDate(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        switch b[i] {
        case UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"): return i + 1 < b.count && ASCII.isDigit(b[i + 1])
        case 0xE6: return i + 2 < b.count && b[i + 1] == 0x9C && b[i + 2] == 0x88  // 月
        default: return false
        }
    }

    /// After a digit, a time may be written here (`10:30`, `15h`, `3時`, `10 am`, `14 Uhr`, `9 du matin`…).
    private func mayStartTime(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        func isByte(_ k: Int, _ v: UInt8) -> Bool { k < b.count && b[k] == v }
        switch b[i] {
        case UInt8(ascii: ":"): return i + 1 < b.count && ASCII.isDigit(b[i + 1])
        case UInt8(ascii: "h"), UInt8(ascii: "H"): return true
        case 0xE6: return isByte(i + 1, 0x99) && isByte(i + 2, 0x82) || isByte(i + 1, 0x97) && isByte(i + 2, 0xB6)  // 時 时
        case 0xE7: return isByte(i + 1, 0x82) && isByte(i + 2, 0xB9)  // 点
        case 0xE9: return isByte(i + 1, 0xBB) && isByte(i + 2, 0x9E)  // 點
        default:
            let k = b[i] == UInt8(ascii: " ") ? i + 1 : i
            guard k < b.count, markerInitials[Int(b[k])] else { return false }
            return markers.contains { marker in
                marker.count <= b.count - k && zip(b[k...], marker).allSatisfy { ASCII.lowercased($0) == $1 }
            }
        }
    }
}
